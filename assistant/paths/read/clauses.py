"""Cut a cleaned answer into clauses and say of each whether it affirms or denies.

``clauses(text, rules, topics)`` returns the ``Clause``es of an answer that ``clean`` has
normalised (lowercase, accents folded, spelling corrected, neutral phrases blanked), each
affirmed or denied for itself; ``Rules`` is the ``reading`` block of ``corpus/parcours.yaml``
compiled once. The grammar (where a clause ends, what a negation or an exception scopes over,
a beginner in a named domain) is described in ``assistant.paths.read.reading``, which scores the clauses.
Limits: no syntax tree; a pronoun reaches back one clause only.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from assistant.paths.choice import normalise
from assistant.paths.read.spelling import correct

SPLIT = re.compile(
    r"([;!?()\n/]|\bparce qu'|\bpuisqu'|[,:](?!\d)|\.(?=\s|$)|\s[-–—]\s|\b(?:mais|sauf|hormis|par contre|en revanche|cependant|pourtant|"
    r"toutefois|neanmoins|alors que|tandis que|but|except|however|though|although|whereas|apart from|"
    r"vu que|puisque|parce que|since|because)\b|"
    # "j'utilise pytorch jamais écrit de noyau": "jamais"/"never" after a topic, with no
    # auxiliary or subject before it and a complement after its verb, opens an elliptic denial of
    # its own (on paths_dev5 it denied PyTorch too); not "je n'ai jamais", "j'en ai jamais",
    # "presque jamais", "I have never", nor a bare "TMA jamais vu" (a list's predicate).
    r"(?<=\w )(?<!\bai )(?<!\ba )(?<!\bavons )(?<!\bavez )(?<!\bont )(?<!\bje )(?<!\bj'en )(?<!\bn'en )"
    r"(?<!\bpresque )(?<!\bquasi )(?<!\bquasiment )(?<!\bencore )(?<!\bou )(?<!\bet )(?<!\bhave )(?<!\bhas )"
    r"(?<!\bhad )(?<!\bsans )(?<!\bwithout )(?<!\bplus )(?<!\bi )(?<!'ve )(?<!\balmost )(?<!\bor )(?<!\band )"
    r"(?<!\bc'est )(?<!\bpas )(?<!\bne )"
    r"(?=(?:jamais|never) (?!de la vie|of my life)[\w']+ [\w'])|"
    # A relative clause ("ma direction qui n'y connaît rien"), but "ce qui m'intéresse".
    r"(?<=\w )(?<!\bce )(?=(?:qui|who)\b)|"
    # A bare "oui"/"ok" between two topics ends the first ("pytorch oui kernel custom jamais"): on
    # paths_dev5 the denial after it was read over PyTorch too, and the level went to "programmer".
    r"(?:(?<=\w oui)|(?<=\w ouais)|(?<=\w yes)|(?<=\w yep)|(?<=\w ok))(?= [\w'])|"
    r"\bet (?=(?:je|j'|on|nous|jamais|pas|rien|aucune?|par contre)\b)|\band (?=(?:i|i'\w+|never|not|no)\b)|"
    # A wish coordinated with a fact ("I code in C and want to write kernels").
    r"\band (?=(?:want|wanna|would like|hope|plan)\b)|"
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
    idem non plus either neither nor chinois chinese grec greek mystere mystery nouveau nouveaux nouvelle
    nouvelles new to unfamiliar du""".split())
# A phrase that opens with "sans"/"without" (cut off by SPLIT) denies what follows. "non" inside
# a clause before an adjective is the adjective's prefix ("les accès non coalescés", "non
# alignés"): on paths_dev6 it denied an optimiser's own profiling; not before a participle of
# experience ("TMA non utilisé", "non vu" stay denials).
NEGATION = re.compile(r"^(?:sans|without)\b|\b(?:jamais|pas|aucune?|rien|ni|"
                      r"(?<!\w )non|non(?! (?!(?:utilise|vu|touche|connu|fait|ecrit|teste|essaye|aborde|maitrise|"
                      r"compris|lu|pratique|programme|code)s?\b)[a-z]{3,}(?:e|es|ee|ees|ant|ants|able|ables|ible|ibles)\b)|nan|nah|nul|zero|never|idk|dunno|jsp|jsais pas|"
                       r"chais pas|not|no|nothing|none|nope|nada|"
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
                      r"entendu|heard|vu|seen|lu|read about|ok|oui|yes|yep|je vois|i see|vois|idee|idea|clue|"
                      r"sure|fine|clear|clair\w*)\b")
# "je sais écrire des noyaux Hopper", "I know how to write kernels": knowing how to do is doing,
# a claim, not a fact known (paths_dev22: read as knowing, "je sais écrire des noyaux hopper avec
# TMA mais j'ai jamais codé de ma vie" claimed nothing and was recommended on: 1 of the 45
# dialogues to be asked).
_CAN_DO = re.compile(r"\b(?:sai[st]|savoir|know how to|knows how to|knew how to)\s+(?:bien\s+|deja\s+|already\s+)?"
                     r"(?:ecrire|coder|programmer|optimiser|profiler|developper|write|code|program|optimi[sz]e|profile|develop)\b")
# Knowing the name is not knowing the thing: "j'en ai entendu parler", "c'est quoi ?" (in chat
# spelling too, "c koi ?": on paths_dev6 it was asked again until the dialogue gave up).
HEARD_OF = re.compile(r"\b(?:entendu parler|heard of|heard about|de nom|the name|only the name|le nom|le terme|the term|"
                       r"vu passer|croise le terme|seen it around|come across|c'est quoi|c quoi|cest quoi|kesako|quesaco|"
                       r"qu'est-ce que c'est|what is (?:that|it|this)|what'?s that|ca me dit (?:vaguement )?quelque chose|"
                       r"rings a bell)\b")
# "je vois ce que c'est", "I know what it is": knowing what a thing named before is.
IT_IS_KNOWN = re.compile(r"\b(?:je sais|je vois|je connais|i know|i get)\s+(?:bien\s+|tres bien\s+|quand meme\s+)?"
                         r"(?:ce que c'est|ce que c est|ce que ca (?:fait|est)|a quoi (?:ca|elles?|ils?) sert|"
                         r"what (?:it is|they are|it does|they do))")
# A prerequisite's definition, right ("un warp, c'est 32 threads"), and the hedges on wording
# that do not take it back ("I know roughly that a warp is a group of 32 threads").
DEFINED = re.compile(r"\bwarps?\b.{0,30}\b(?:32|trente-deux) (?:threads|fils)\b")
WORDING = re.compile(r"\b(?:roughly|en gros|grosso modo|a peu pres|basically|in short|en bref)\b")
AFFIRM = re.compile(r"\b(?:oui|yes|yep|ouais|bien sur|of course|sure|je (?:sais|connais|maitrise|comprends)|"
                     r"i (?:know|understand|get)|deja|already|connu|known|vu|seen)\b")


_SUBJECT = re.compile(r"(?:^|\b)(?:je|j'|tu|il|elle|on|nous|vous|ils|elles|i|i'm|i've|you|he|she|we|they|c'est)(?:\b|(?<=')|$)")
_REASON = re.compile(r"^(?:vu que|puisque|puisqu'|parce que|parce qu'|since|because)$")
_CONCESSION = re.compile(r"^(?:mais|par contre|en revanche|but|however)$")
# "tout ce qui est Hopper, TMA": the item is Hopper ("tout ce qui est", "everything"), as a list item.
_FILLER = frozenset("les la le l' des du de d' un une et alors the a an and or ou puis aussi also tout ce qui est "
                    "everything".split())
_REFUSAL = re.compile(r"(?:non|nan|nah|no|nope|pas du tout|pas vraiment|pas trop|not really|not at all|no way|"
                      r"surtout pas|certainement pas|absolument pas|pas question|bof|meh)(?: merci| thanks)?")
_OK = frozenset("ok okay oui yes yep sure fine".split())
_I_KNOW = frozenset("connais maitrise know master".split())
_WH = re.compile(r"^(?:et |and )?(?:pourquoi|why|how|comment|ce que|ce qu'|what|quand|when)\b")
# "I know why you don't want cudaDeviceSynchronize between kernels": after a knowing verb and a
# question word, a negation belongs to what is known, not to the knowing (on paths_dev5 the
# sync prerequisite was read as denied); "je sais pas pourquoi" stays a denial.
_KNOW_WH = re.compile(r"\b(?:je sais|je comprends|je vois|i know|i understand|i get|i see)(?: (?:tres bien|bien|tout a fait|"
                      r"exactement|tres exactement|well|exactly|fully))? (?:ce )?(?:pourquoi|comment|qu'|que|why|how|what|"
                      r"that)(?=\W|$)")
# An object pronoun that takes back what was named before ("je ne l'ai jamais fait", "je n'y
# ai pas touché", "never used them"), in a denial of this many words at most.
# Its subject comes first: "pas de l'IA" is an article, not a pronoun.
_RESUMED = re.compile(r"\b(?:je|on|nous|tu) (?:ne |n')?(?:l'|les |y |en )|\bj'(?:y|en) |\b(?:them|it)$")
_RESUMED_MAX = 8
# Words of a list item that names no topic and lets the list's predicate through ("clusters").
_OTHER_ITEM = 2
# Words in a bare list item ("les mbarrier et TMA") that takes its verb from a neighbour.
_LIST_ITEM = 4


_WORD = re.compile(r"[a-z]+")
# The words this module's grammar reads (its negations, knowing verbs, list words).
GRAMMAR_WORDS = frozenset(w for pattern in (SPLIT, _EXCEPT, _ANY, NEGATION, _KNOWING, AFFIRM, _SUBJECT, _CONCESSION,
                                            _WH, _REFUSAL, _KNOW_WH)
                          for w in _WORD.findall(pattern.pattern)) | _BARE | _FILLER | _OK


@dataclass(frozen=True)
class Clause:
    text: str
    negative: bool
    knowing: bool = False       # says what the reader knows, not what they do
    weak: bool = False          # takes a vague or partial predicate ("CUDA, je connais de nom")
    exception: bool = False     # follows "sauf", "except": it restricts the clause before
    asked: bool = False         # ends with a question mark ("cudaDeviceSynchronize is fine?"): a doubt
    reason: bool = False        # follows "parce que", "because": says why, not what



class Rules:
    """The ``reading`` block of parcours.yaml, compiled once."""

    def __init__(self, data: dict, options: list[dict] = (), ordinary: frozenset[str] = frozenset(),
                 lexicon: frozenset[str] = frozenset()) -> None:
        # The spelling vocabulary: the listed words plus every plain word of five letters or
        # more that the options' patterns spell out ("traitement", "simulation", …).
        spelled = {w for o in options for p in o.get("patterns", []) + o.get("when_denied", [])
                   for w in re.findall(r"(?<![\\\w])[a-z]{5,}(?![\w])", p[0])}
        self.vocabulary = frozenset(data.get("vocabulary", [])) | frozenset(spelled)
        # Words spelt right as they are: the listed ones and ``ordinary``, the words of the guide
        # itself ("jours", "prendre", "technique" are no misspelling of "cours", "rendre", "mecanique").
        self.known_words = frozenset(data.get("known_words", [])) | (ordinary - self.vocabulary)
        self.aliases = dict(data.get("aliases", {}))
        self.neutral = re.compile(data["neutral"])
        self.fine = re.compile(data.get("fine", r"(?!)"))
        self.hedges = re.compile(data["hedges"])
        self.undecided = re.compile(data["undecided"])
        self.partial = re.compile(data["partial"])
        self.unsure = re.compile(data["unsure"])
        self.vague = re.compile(data["vague"])
        self.experience = re.compile(data["experience"])
        self.wish = re.compile(data["wish"])
        self.ladder = list(data.get("ladder", []))
        self.no_code = re.compile(data["no_code"])
        self.long_past = re.compile(data.get("long_past", r"(?!)"))
        self.not_yet = re.compile(data.get("not_yet", r"(?!)"))
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
        self.kernels_with = {k: re.compile(v) for k, v in data.get("kernels_with", {}).items()}
        self.explanations = {k: re.compile(v) for k, v in data.get("explanations", {}).items()}
        self.level_needs = {k: list(v) for k, v in data.get("level_needs", {}).items()}
        self.level_denies = {k: list(v) for k, v in data.get("level_denies", {}).items()}
        # Every word the reader knows: ``lexicon`` (the guide's words, the everyday words), the
        # words the rules themselves spell out and those of this module's grammar. A clause that
        # holds any other word ("jsp", "mouais", a hedge nobody listed) is not read as affirming.
        self.lexicon = frozenset(lexicon) | self.vocabulary | self.known_words | GRAMMAR_WORDS | \
            frozenset(_words_of(data)) | frozenset(_words_of([dict(o, examples=[]) for o in options])) | \
            frozenset(w for pair in self.aliases.items() for v in pair for w in _WORD.findall(str(v)))


def _words_of(value) -> list[str]:
    """The plain words of the strings of a YAML block (its patterns, labels, lists)."""
    if isinstance(value, str):
        return _WORD.findall(value)
    if isinstance(value, dict):
        return [w for k, v in value.items() for w in _words_of(k) + _words_of(v)]
    if isinstance(value, (list, tuple)):
        return [w for v in value for w in _words_of(v)]
    return []


def unknown_words(text: str, rules: Rules) -> list[str]:
    """The words of a cleaned clause that the reader's lexicon does not hold; one letter and
    numbers are left out ("c", "g", "2": abbreviations the aliases and spelling pass read)."""
    return [w for w in _WORD.findall(text) if len(w) > 1 and w not in rules.lexicon]


# Chat shorthand for words the rules read: "+ vite", "PyTorch + rapide" (a comparative, not
# "C++"), "0 GPU" (a count of none, not "sm_90" nor "1.0"). On paths_dev6 both were read as
# unknown and 2 clear answers of 23 terse ones were asked again.
_PLUS = re.compile(r"(?<![\w+])\+(?!\+)\s*(?=(?:vite|rapides?|rapidement|efficaces?|performante?s?|lente?s?|"
                   r"faciles?|simples?|fast\w*|quick\w*)\b)")
_NONE = re.compile(r"(?<![\w.,])0(?![\w.,%])\s*(?=[a-z])")
# "un tenseur sur cuda:0", "x.cuda()": PyTorch's name of a device, no CUDA written (paths_dev9/10:
# 3 PyTorch users of 45 asked whether they wrote CUDA kernels); and the colon would cut a clause.
_DEVICE = re.compile(r"\bcuda(?::\d+|\s?\(\))")
# "hopper kernels w/ TMA": chat shorthand for "with"; the slash would cut the kernels off their
# TMA (paths_dev25: 1 Hopper reader of 45 asked TMA).
_WITH = re.compile(r"(?<![\w/])w/(?=\s|[a-z])\s*")


def clean(text: str, rules: Rules) -> str:
    """Normalised, spelling-corrected text with the neutral phrases blanked."""
    norm = _NONE.sub("zero ", _PLUS.sub("plus ", _DEVICE.sub("device", _WITH.sub("with ", normalise(text)))))
    # Not a module's name: "torch.nn" keeps its "nn", which alone is « non » (paths_dev17).
    norm = re.sub(r"(?<![\w.])[\w']+", lambda m: rules.aliases.get(m.group(0), m.group(0)), norm)
    norm = correct(norm, rules.vocabulary, rules.known_words)
    norm = rules.fine.sub(" ok ", norm)
    return re.sub(r"\s+", " ", rules.neutral.sub(" ", norm)).strip()


def clauses(text: str, rules: Rules, topics: list[re.Pattern]) -> list[Clause]:
    """The clauses of a cleaned answer with their polarity (see the module docstring)."""
    pieces = SPLIT.split(text)
    parts: list[tuple[str, str]] = []           # (clause, separator that follows it)
    for i in range(0, len(pieces), 2):
        sep = pieces[i + 1].strip() if i + 1 < len(pieces) else "."
        if pieces[i].strip():
            parts.append((pieces[i].strip(), sep))
        elif parts and not _LIST_SEPARATOR.match(sep):
            parts[-1] = (parts[-1][0], sep)
    out: list[Clause] = []
    carry: tuple[bool, bool, bool] | None = None      # (negative, knowing, weak) of a bare predicate
    slash_only = False                          # that predicate ends "a/b/c ok": it reaches across "/" only
    fresh = False                               # that predicate is the very next clause
    before = ["."] + [sep for _, sep in parts[:-1]]
    for part, sep in reversed(parts):
        # "le coup de cudaDeviceSynchronize par contre je vois pas trop": a topic with no subject
        # of its own takes the bare predicate that follows it, across a concession too.
        subjectless = not _SUBJECT.search(part) and fresh
        if not _LIST_SEPARATOR.match(sep) and not (subjectless and _CONCESSION.match(sep)) or \
                (slash_only and sep != "/"):
            carry = None
        slash_only = False
        fresh = False
        neg = _negative(part)
        knowing = bool(_KNOWING.search(_CAN_DO.sub(" ", part)))
        if not any(t.search(part) for t in topics) and carry is not None and not neg and not knowing and \
                not AFFIRM.search(part) and not _SUBJECT.search(part) and content_words(part) <= _OTHER_ITEM:
            # An item the rules have no word for ("Hopper, TMA, clusters, je ne l'ai pas abordé")
            # stays in the list: the predicate reaches the items before it.
            out.append(Clause(part, carry[0], carry[1], carry[2], asked=sep == "?"))
            continue
        # "TMA, mbarrier : rien": a bare denial is a predicate even when a rule reads its word
        # ("rien" alone answers the level question too; paths_dev12: the two were read as Hopper)
        bare_denial = neg and all(w in _BARE for w in re.findall(r"[\w']+", part))
        if bare_denial or not any(t.search(part) for t in topics):
            # Only a bare predicate ("jamais vu", "je connais pas", "oui") lends its polarity to
            # the list before it; "pas l'entraînement" speaks of something else.
            bare = knowing or AFFIRM.search(part) or bare_denial
            # "Hopper, TMA, clusters, je ne l'ai pas encore abordé": a short denial that takes the
            # list back by a pronoun, whatever its verb (on paths_dev6 the list was read as
            # affirmed and a profiler who never did Hopper was asked between the two).
            bare = bare or (neg and bool(_RESUMED.search(part)) and len(part.split()) <= _RESUMED_MAX)
            # "warp, mbarrier, sync : tout sauf TMA": "tout" before an exception affirms the list
            # before it (on paths_dev5 the three were left unsettled and read as a clash).
            if _ANY.fullmatch(part) and _EXCEPT.match(sep) and not neg:
                bare, knowing = True, True
            carry = (neg, knowing, bool(rules.vague.search(part) or rules.partial.search(part))) if bare else None
            fresh = carry is not None
        elif carry is not None and not neg and (content_words(part) <= _LIST_ITEM or subjectless) and \
                not AFFIRM.search(part) and not knowing:
            # A bare list item before its predicate; a writing verb keeps it a claim of doing, not
            # of knowing ("Writing Hopper TMA kernels, yes": on paths_dev4, read as knowing, its
            # TMA counted half and the answer was asked between Hopper and simple kernels).
            neg, weak = carry[0], carry[2]
            knowing = (carry[1] and not rules.writes.search(part)) or knowing
            out.append(Clause(part, neg, knowing, weak, asked=sep == "?"))
            continue
        else:
            carry = None
            # "warp/mbarrier/tma ok": the last of items joined by "/" lends its bare predicate to
            # the others (on paths_dev2, only TMA was read as known).
            tail = re.findall(r"[\w']+", functools.reduce(lambda text, t: t.sub(" ", text), topics, part))
            if tail and all(w in _BARE or w in _OK for w in tail):
                carry, fresh, slash_only = (neg, knowing, bool(rules.partial.search(part))), True, True
            elif tail and not neg and all(w in _BARE or w in _I_KNOW for w in tail) and set(tail) & _I_KNOW:
                # "tma, mbarriers, warps je connais": a first-person knowing verb after the last
                # item reaches the bare items before it across commas too (paths_dev26: 1 Hopper
                # reader of 45 asked mbarrier); a bare "ok" reaches across "/" only.
                carry, fresh = (neg, knowing, bool(rules.partial.search(part))), True
        out.append(Clause(part, neg, knowing, asked=sep == "?"))
    out.reverse()
    knowing = denied_list = False
    for i, (c, prev) in enumerate(zip(out, before)):
        # "je connais les warps, les mbarrier et TMA": the list after a knowing verb.
        # A clause with a subject of its own ("…, j'écris des kernels warp-specialized") is no item.
        # "I understand warps, mbarriers, and why syncing the device between kernels is bad": a
        # question word goes on the knowing verb's list, however long its clause.
        item = knowing and not c.knowing and (content_words(c.text) <= _LIST_ITEM or bool(_WH.match(c.text))) and \
            not _SUBJECT.search(c.text)
        knowing = c.knowing or item
        # "je ne connais pas les warps, mbarrier et TMA": the list after a comma takes the
        # denial of the knowing verb too, as it takes its knowing.
        negative = c.negative or (item and denied_list and prev == ",")
        denied_list = negative if c.knowing else denied_list and item
        # "anything but LLM inference": after "anything", "but" is an exception, not a concession.
        exception = _EXCEPT.match(prev) or (prev == "but" and _ANY.fullmatch(out[i - 1].text))
        if i and exception and not c.text.startswith(("que ", "qu'", "that ")) and \
                not NEGATION.search(c.text):
            # "tout sauf TMA" denies TMA; "jamais écrit de noyau, sauf mes noyaux Hopper" affirms them.
            negative = not out[i - 1].negative
            out[i] = Clause(c.text, negative, knowing, c.weak, exception=True, asked=c.asked)
            continue
        out[i] = Clause(c.text, negative, knowing, c.weak, asked=c.asked, reason=bool(_REASON.match(prev)))
    # "first useful kernel? nah, I want …": an option put as a question and turned down at once
    # is denied (on paths_dev5 it was read as a second wish and the goal asked again).
    for i in range(len(out) - 1):
        if out[i].asked and not out[i].negative and _REFUSAL.fullmatch(out[i + 1].text):
            c = out[i]
            out[i] = Clause(c.text, True, c.knowing, c.weak, c.exception, asked=False)
    return out


def _negative(part: str) -> bool:
    m = _KNOW_WH.search(part)
    return bool(NEGATION.search(part[:m.start()] if m else part))


def content_words(text: str) -> int:
    """Words of a clause but articles and linking words ("alors les mbarrier et la TMA": 2)."""
    return sum(1 for w in re.findall(r"[\w']+", text) if w not in _FILLER)


def self_negating(pattern: re.Pattern, clause: str) -> bool:
    """A pattern that matches the negation itself ("sans code", "je ne code pas")."""
    if not NEGATION.search(pattern.pattern):
        return False
    m = pattern.search(clause)
    if not m:
        return False
    rest = clause[:m.start()] + " " + clause[m.end():]
    return bool(NEGATION.search(m.group(0))) and not NEGATION.search(rest)


def consume_negation(clause: Clause, patterns: list[re.Pattern]) -> Clause:
    """A clause whose only negation belongs to a self-negating pattern ("comprendre sans
    coder") affirms: the negation is the content, not the polarity."""
    if not clause.negative or not NEGATION.search(clause.text):
        return clause       # affirmed, or denied by the predicate that follows it
    rest = without_negated(clause.text, patterns)
    return clause if NEGATION.search(rest) else Clause(clause.text, False, clause.knowing,
                                                        exception=clause.exception, asked=clause.asked)


def without_negated(text: str, patterns: list[re.Pattern]) -> str:
    """``text`` with each self-negating pattern's negated match blanked: what the rest of
    the clause affirms ("je veux pas coder de noyaux" affirms no kernel writing)."""
    for pattern in patterns:
        if NEGATION.search(pattern.pattern):
            text = pattern.sub(lambda m: " " if NEGATION.search(m.group(0)) else m.group(0), text)
    return text


# A beginner in something ("débutant en CUDA", "new to Hopper", "novice with TMA"); an
# intensifier makes a beginner at everything ("débutant complet en CUDA" stays a beginner).
_BEGINNER_IN = re.compile(r"\b(?:debutan\w*|debute|novice|beginner|newbie|noob|nouveau|nouvelle|new|neophyte)\s+"
                          r"(?:en|sur|avec|dans|in|at|with|to|on)\s+(?P<what>.+)$")
_INTENSE = re.compile(r"\b(?:complet\w*|total\w*|grand|absolu\w*|complete\w*|vrai|true|pure|parfait\w*)\b")
_THE_FIELD = re.compile(r"\b(?:this|that|the field|this field|ce domaine|le domaine|ca|tout|everything|all this)\b")


def beginner_in(text: str, compiled: dict, rules: Rules) -> list[str] | None:
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

