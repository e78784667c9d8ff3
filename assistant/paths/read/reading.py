"""Read a free answer as a person would: clauses, what is affirmed and what is denied.

``read_answer(text, options, rules)`` returns a ``Reading``: the option the answer points
to (with a confidence, as ``choice.Match``), the options it contradicts itself on, and the
path-F prerequisites it says the reader knows (True) or does not know (False).

How an answer is read (rules and vocabulary live in ``corpus/parcours.yaml``, ``reading``):
1. normalised (lowercase, accents folded, chat shorthand read: "+ vite", "0 GPU", "prog", "nn"),
   misspelt words mapped to the vocabulary
   (``assistant.paths.read.spelling``), filler phrases that look negative but are not ("rien de plus",
   "il ne faut pas appeler …", "pas de souci", "c'est nul") blanked;
2. cut into clauses at punctuation, at concessions ("mais", "sauf", "par contre", "but",
   "except" …), at reasons ("vu que", "because"), at "et je …", "and never …", after a bare
   "oui"/"ok" between two topics ("pytorch oui kernel custom jamais") and before an elliptic
   "jamais <verbe> <complément>" with no auxiliary before it ("j'utilise pytorch jamais écrit de noyau");
3. each clause is affirmed or denied ("jamais", "pas encore", "n'ai … pas", "never",
   "not yet", "idk" …): the negation scopes over its own clause only. A topic with no predicate
   of its own ("mbarrier, TMA : jamais vu", "le coup de cudaDeviceSynchronize par contre je vois
   pas trop") takes the polarity of the bare predicate right after it ("warp, mbarrier, sync :
   tout sauf TMA": "tout" affirms the list; it reaches items the rules do not name and is taken
   back by a pronoun: "Hopper, TMA, clusters, je ne l'ai pas abordé"); "non" before an adjective
   is its prefix ("accès non coalescés"), not before a participle ("TMA non utilisé"); what follows an
   exception is denied after an affirmed clause ("tout sauf TMA") and affirmed after a denied
   one ("jamais écrit de noyau, sauf mes noyaux Hopper"); a pronoun ("j'en ai jamais écrit")
   stands for the topic of the clause before; an option put as a question and turned down at
   once is denied ("first useful kernel? nah, …"); a negation after "je sais pourquoi", "I know
   why" belongs to what is known ("I know why you don't want cudaDeviceSynchronize …");
4. affirmed clauses add their options' pattern weights, at half weight in a vague clause ("un
   peu de CUDA", "des trucs", "de nom") and, for prerequisite words, at half in a clause that
   says what the reader knows and not at all in one that says they only heard of it ("entendu
   parler de TMA", "TMA vaguement"), and at half in a goal answer's reason that is no wish of
   the reader ("parce qu'on me dit que c'est l'avenir de l'inférence") or its possessive purpose
   ("pour notre moteur d'inférence"); denied clauses add nothing for those patterns but apply
   the denial rules ("jamais touché un GPU" rules out the kernel levels and speaks for
   "programmer"); a denial in a clause about experience, not a wish ("jamais écrit de noyau",
   not "sans coder"), is a stated fact: ``Reading.excludes``; a level whose own words are denied
   and never claimed is ruled out ("never used a GPU, not even through pytorch"), but the first
   rung; a job title or a field is no claim, does not pick the rung a denial supports, and counts
   half beside a rung with evidence of its own ("data scientist, numpy …" is "programmer");
5. an option affirmed (1.5 or more of claim) and ruled out by another clause is a
   contradiction (not when the claim is only a prerequisite used and the ruling out only a
   narrow denial: "les mbarriers avec cp.async, mais TMA jamais"); two clauses whose facts cannot both be true are a clash, quoted in the
   reader's words (``Reading.clash``, see ``find_clash``): coding denied outright against a
   claim that supposes code, the same words denied and claimed, no code wished against code
   wished; levels form a ladder, so background evidence of a lower level ("je code en
   Python") moves up to the highest level the answer otherwise supports;
6. hedged, never settled: a hesitation ("je sais plus trop") with a runner-up, two options at
   once or a self-correction ("les deux", "enfin non"), nothing but a job title or a field
   ("développeur", "data scientist", "l'IA"), a goal answer that names two goals or more with a
   hesitation or as alternatives ("comprendre… ou coder… ou les LLM, je sais pas"; "ou" in the
   reader's spelling, not "où"), a vague clause that speaks for another option
   than the best ("dev backend, et j'ai vaguement bidouillé des trucs sur GPU"), experience
   said to be long past above the first rung ("du CUDA il y a longtemps"). A wish in a level
   answer ("want to write CUDA kernels") is no level evidence; a denial in a relative clause
   ("ma direction qui n'y connaît rien") is someone else's; in a goal's wish, "ça" stands for
   the clause before ("un billet sur les megakernels, je veux comprendre ça").
Prerequisites, safe by construction: known only when a clause affirms one plainly (the first
person, a knowing or affirming predicate: "je connais TMA", "j'écris des noyaux avec TMA",
"warp/mbarrier/tma ok", "the sync thing too"; in a level answer, kernels named with it: "noyaux
hopper + TMA"; a name taken up by a pronoun: "TMA, je l'ai utilisé"), with no negation, doubt, question mark or wish
in its scope, and every word of the clause in the reader's lexicon (``Rules.lexicon``: the
guide's words, the everyday words, the words of the rules); not known when denied, doubted,
partial, heard of or confusing ("jsp", "entendu le mot", "confuse me"), in the clause or by a
first-person denial right after it ("…, je ne l'ai jamais compris"); asked when the clause, or a
clause with no topic right after it, holds a word outside the lexicon ("c mal jsp", "ok
mouais", "tkt"); otherwise (only named: "TMA, Hopper plus tard",
"les mbarrier sont cachées par la bibliothèque") unsettled, and asked, but for a level answer that
is nothing but the Hopper level's own label ("Hopper + TMA", "Hopper kernels, TMA"): a
question too many costs less than a prerequisite wrongly taken as known. "tout sauf TMA"
settles TMA only. Every fact is then read a second time, locally, by ``assistant.paths.read.window``
(the words right around the prerequisite's name), and kept only when both readings agree.
Steps 1-3 live in ``assistant.paths.read.clauses``, the clashes of step 5 in ``assistant.paths.read.clash``; a yes/no
answer to a prerequisite question is read by ``assistant.paths.read.yesno``.
Limits: no syntax tree; nested clauses beyond one concession per sentence are read clause by
clause; a pronoun reaches back one clause only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from assistant.paths.choice import Match
from assistant.paths.read.clash import CLAIM_MIN, claims_of, find_clash
from assistant.paths.read.clauses import (AFFIRM, DEFINED, IT_IS_KNOWN, NEGATION, SPLIT, Clause, Rules, beginner_in, clauses,
                                          clean, consume_negation, content_words, self_negating, unknown_words, WORDING,
                                          without_negated)
from assistant.paths.read.quotes import source_span
from assistant.paths.read.window import check_facts

# Own evidence a higher level needs before a lower level's background moves up to it: one
# passing word ("mémoire partagée", 1) must not lift a CUDA course to "optimiser".
_LADDER_MIN = 2.0
# A clause about the reader ("les noyaux que j'ai écrits"); not "on": "kernels on H100".
_BARE_NO = re.compile(r"(?:(?:mais|but|donc|so) )?(?:non|no|nope|nan|pas vraiment|not really|toujours pas|still no)")
_FIRST_PERSON = re.compile(r"(?:^|\b)(?:je|j'|j(?= )|i|i'm|i've|we|we've|nous)(?:\b|(?<=')|$)")
# Reported speech: "on m'a dit que", "il paraît que", "I was told", "people say".
_HEARSAY = re.compile(r"\b(?:on (?:m'a|nous a|me|nous) (?:dit|dis|raconte)\w*|il para[iî]t|paraitrait|para[iî]t-il|"
                      r"(?:j'ai|on a) entendu dire|tout le monde (?:dit|en parle)|(?:i was|we were|i've been|i have been) told|"
                      r"(?:people|they|everyone|everybody) (?:say|says|said|tell)|apparently|supposedly|rumou?r)\b")
# A profiler as the place where something was seen ("vérifié dans nsys", "I've seen the gaps
# in nsys traces"): the reader looked at a trace, which is no claim of optimising kernels.
_SEEN_IN = re.compile(r"\b(?:vu|verifie\w*|constate\w*|observe\w*|remarque\w*|seen|saw|noticed|checked|verified|"
                      r"spotted)\b.{0,40}\b(?:dans|in|avec|with|sur|on|via)\b.{0,12}\b(?:nsys|nsight\w*|ncu|traces?|"
                      r"timelines?|profil\w*)\b")
# A clause that only hesitates ("enfin", "bon", "well"): the qualifier after it still qualifies.
_INTERJECTION = re.compile(r"(?:enfin|bon|ben|bah|euh+|hmm+|well|i mean|je veux dire|disons|let's say)")
# Not "récemment" alone: "récemment j'ai écrit deux ou trois noyaux CUDA" is kernels written
# (paths_dev24: 1 simple-kernels reader of 45 asked about the level).
_LITTLE_USE = re.compile(r"\b(?:commenc\w* a|(?:just |recently )?started|une fois(?! que| qu')|une ou deux fois|"
                         r"deux ou trois fois|once(?! i | we )|a couple of times)\b")
_VIA_LIBRARY = re.compile(r"\b(?:via|through|a travers|par le biais d\w*|grace a) (?:la |le |les |the |a |une? )?"
                          r"(?:cutlass|cute|triton|thunderkittens|cublas|cudnn|biblioth\w*|librar\w*|lib|libs)\b")
_LABEL_ONLY = re.compile(r"(?:(?:noyaux?|kernels?|hopper|tma|avec|with|et|and|tout ca|all that|etc|"
                         r"[,+&/])\s*)+")
# A complement with no verb of its own that goes on the clause before ("…, avec les mbarriers").
_WITH_IT = re.compile(r"(?:avec|with)\b")
_SUBJECT_OF = re.compile(r"(?:^|\b)(?:je|j'|on|nous|i|we)(?:\b|(?<=')|$)")
# A pronoun that takes up what was named before: « je l'ai utilisé », « je les connais », "I used it".
_RESUMED_BY = re.compile(r"(?:^|\b)(?:je|j'|on|nous) (?:ne |n')?(?:l'|le |la |les |l )|(?:^|\b)(?:j'en|n'en)\b|"
                         r"\b(?:i|we) \w+ (?:it|them)\b")
# Not having looked at what a thing is: « sans vraiment regarder ce qu'il y a dessous ».
_WITHOUT_LOOKING = re.compile(r"(?:sans|without) (?:vraiment |trop |bien |really )?(?:regarder|chercher|look\w*|dig\w*)\b")
_KNOWING_VERB = re.compile(r"\b(?:connai\w*|sai[st]|know\w*|understand\w*|compri\w*|comprend\w*|vois|see)\b")
# What a denied wish writes none of: « je veux pas en écrire », "I don't want to write any".
_IT_OBJECT = re.compile(r"\b(?:j'en|n'en|en (?=(?:ecrire|coder|programmer|faire|creer|developper)\b))|"
                        r"\b(?:write|code|build|program) (?:any|one|them)\b")
_PRONOUN = re.compile(r"(?:\bj'en\b|\bn'en\b|\ben (?:ai|avons|a)\b|\b(?:any|one)\b)")


# Asking what a thing is (« c koi un warp déjà ? », "what's a warp again?"): it is not known.
_WHAT_IT_IS = re.compile(r"\b(?:c'est quoi|c quoi|cest quoi|ce quoi|kesako|quesaco|qu'est-ce que c'est|qu'est ce que c'est|"
                        r"what is (?:a|an|the) \w+|what'?s (?:a|an|the) \w+)\b")
# What « j'en ai écrit » may stand for, named in the clause before
_KERNEL_NOUN = re.compile(r"\b(?:noyaux?|kernels?)\b")
# A relative clause cut off by ``SPLIT`` ("… qui n'y connaît rien", "… who never coded").
_RELATIVE = re.compile(r"^(?:qui|who)\b")
# A clause that gives something a name ("my cat's name is Tensor", "mon chien s'appelle Cuda"):
# the name is no evidence of what the reader knows (paths_dev9: 1 nonsense answer of 10 was
# recommended on as PyTorch for it).
_NAMING = re.compile(r"\b(?:s'appelle\w*|appele\w*|nomme\w*|surnomm\w*|name is|names are|named|called|nicknamed)\b")
_THAT = re.compile(r"\b(?:ca|cela|ceci|it|them|that|this)\b")
_WISH_VERB = re.compile(r"\b(?:veux|voudrais|voudrait|aimerais|souhaite\w*|envie|want\w*|wanna|would like|i'?d like|"
                        r"plan to|planning to|hope|j'espere|objectif|goal)\b")
# Using or writing with something, the first-person ways of knowing it by practice.
_DOING = re.compile(r"\b(?:ecri\w*|j'ecris|utilis\w*|j'utilise|uses?|used|using|wr[io]t\w*|written|cod\w*|programm\w*|"
                    r"implement\w*|fais|fait|did|done|travaill\w*|bosse\w*|work\w*|maintien\w*|maintain\w*|"
                    r"develop\w*|build\w*|built|optimi[sz]\w*|manipul\w*|deploy\w*|deploie\w*|tous les jours|daily|"
                    # handling as doing: « je gère les mbarriers pour la synchro des chargements »
                    # (paths_dev25: 1 Hopper reader of 45 asked mbarrier)
                    r"gere|gerer|handle|handles|handled|handling|manage|manages|managed|managing|every day)\b")
_FOR_OURS = re.compile(r"\b(?:pour|for) (?:notre|nos|mon|ma|mes|leur|leurs|our|my|their)\b(?:\s+[\w']+){0,3}\s*$")
_OR = re.compile(r"\b(?:ou|or)\b")
# "comment Mirage ou les autres fusionnent tout un modèle": "or the others like it" extends a
# name, it offers no other goal (paths_dev25: 1 megakernels reader of 45 asked the goal again).
_OR_OTHERS = re.compile(r"\b(?:ou|or) (?:les |des |d['’]|the )?(?:autres?|others?|similaires?|similar|equivalents?)\b"
                        r"(?! chose| thing)")
_ALSO = re.compile(r"\b(?:aussi|egalement|pareil|idem|too|also|as well)\b")
_THE_REST = re.compile(r"\b(?:reste|rest|autres?|others?|everything else)\b")
# A predicate that says a thing is known, beside the knowing verbs ("warps sure, TMA: all fine").
_AFFIRMED = re.compile(r"\b(?:fine|good|clear|clair\w*|solide|solid|nickel|easy|facile|no problem|maitris\w*|"
                       r"master\w*|got it|a l'aise|comfortable|confortable|evidemment|obviously|naturellement|naturally|"
                       # "mbarriers are my bread and butter" (paths_dev26: 1 Hopper reader of 45 asked mbarrier)
                       r"(?:my|mon) (?:bread and butter|pain quotidien))\b")

# Confused by it, lost in it ("mbarriers still confuse me", « je m'y perds »): not understood, so
# not known, whatever else the clause holds; struggling while doing it (« je galère avec ») is
# left asked (paths_dev25: 1 Hopper reader of 45 asked about the mbarriers that confused him).
_CONFUSED = re.compile(r"\b(?:confus\w*|(?:me|m'y|m'en) perds|(?:i'?m|i am|get|got|getting) lost)\b")

# The words this module's own patterns read ("nickel", "solide", "daily").
_OWN_WORDS = frozenset(w for pattern in (_FIRST_PERSON, _INTERJECTION, _PRONOUN, _RELATIVE, _THAT, _WISH_VERB, _DOING,
                                         _ALSO, _THE_REST, _AFFIRMED, _OR, _LITTLE_USE)
                       for w in re.findall(r"[a-z]+", pattern.pattern))


def _strange(text: str, rules: Rules) -> bool:
    """A word in the clause that neither the guide, the everyday words nor the rules know."""
    return any(w not in _OWN_WORDS for w in unknown_words(text, rules))


def _known(clause: Clause, doubted: bool, rules: Rules, kernels_with: bool = False) -> bool | None:
    """What a clause that names a prerequisite says of it: known (True) only when it affirms it
    plainly, with a knowing predicate or doing with it in the first person ("je connais TMA",
    "j'écris des noyaux avec TMA", "TMA : oui"), with no negation, doubt, wish or learning
    ("I should learn TMA", "je galère avec les mbarrier") in its scope; not known
    (False) when it denies or doubts it; None when it only names it, asks about it ("les mbarrier sont cachées
    par la bibliothèque", "je veux comprendre TMA"): its question is asked. On paths_dev4, the
    prerequisites taken as known from words that named them without affirming were 3 of its
    6 confident recommendations that contradicted the reader."""
    if clause.negative or doubted or _CONFUSED.search(clause.text):
        return False
    if _strange(clause.text, rules):
        # A word the reader does not know may hedge or deny ("c mal jsp", "mouais"): the
        # prerequisite is asked, never taken as known (paths_dev5: 1 of its 3 confident
        # recommendations that contradicted the reader).
        return None
    if rules.wish.search(clause.text) or clause.asked or rules.not_yet.search(clause.text):
        return None
    # « c koi un warp déjà ? »: asking what it is, its « déjà » is no "already" (paths_dev23: 1
    # prerequisite of 45 dialogues taken as known)
    if _WHAT_IT_IS.search(clause.text):
        return None
    if clause.knowing or AFFIRM.search(clause.text) or _AFFIRMED.search(clause.text):
        return True
    # ``kernels_with``: a level answer's clause that names kernels written with it ("noyaux
    # hopper + TMA"): what the reader knows, said as what they write (``Rules.kernels_with``).
    if kernels_with:
        return True
    # Doing with it, in the first person ("j'écris des noyaux avec TMA"); not any first-person
    # clause: "I should learn TMA", "je galère avec les mbarrier" were read as known.
    return True if _FIRST_PERSON.search(clause.text) and _DOING.search(clause.text) else None


@dataclass(frozen=True)
class Reading:
    match: Match
    contradiction: tuple[str, ...] = ()      # options the answer both affirms and rules out
    facts: dict[str, bool] = field(default_factory=dict)   # prerequisite id -> known
    understood: bool = False                  # some word of the answer was recognised
    hedged: bool = False                      # "je ne sais plus trop", "not sure", "les deux", "un peu"
    excludes: tuple[str, ...] = ()            # options the answer's stated facts rule out ("jamais écrit de noyau")
    # Two facts of the answer that do not go together, in the reader's own words: the clause
    # that rules out or denies, and the clause that claims (see ``find_clash``).
    clash: tuple[str, ...] = ()
    # What the reader says they do or did, option by option, in their words: a first-person
    # clause that is not a wish ("les noyaux Triton que j'ai écrits", not "je veux écrire").
    claims: tuple[tuple[str, str], ...] = ()
    denials: tuple[tuple[str, str], ...] = ()   # each excluded option with the words that deny it


# "warp / mbarrier / TMA, je connais que le premier", "I only know the first two": the list
# named before, read in its order (paths_dev18: 1 optimiser of 45 taken as knowing all three)
_ONLY_SOME = re.compile(r"\b(?:(?:je |j')?(?:ne |n')?(?:connais|sais|maitrise|comprends|vois)\s+(?:que|seulement|juste)|"
                        r"(?:i )?(?:only|just) (?:know|get|understand))\s+(?:le |la |les |the )?"
                        r"(?P<which>premier|premiere|1er|first|dernier|derniere|last|deux premiers|2 premiers|"
                        r"first two|two first)\b")


def _named_in_order(text: str, rules: Rules) -> list[str]:
    """The prerequisites ``text`` names, in the order of their first mention."""
    return [pid for _, pid in sorted((found.start(), pid) for pid, pattern in rules.prerequisites.items()
                                     for found in [pattern.search(text)] if found)]


def _only_some_of_list(cleaned: str, rules: Rules) -> dict[str, bool]:
    m = _ONLY_SOME.search(cleaned)
    if not m:
        return {}
    order = _named_in_order(cleaned[:m.start()], rules)
    if len(order) < 2:
        return {}
    which = m.group("which")
    known = order[-1:] if which.startswith(("dernier", "derniere", "last")) else \
        order[:2] if "deux" in which or "two" in which or which.startswith("2") else order[:1]
    return {pid: pid in known for pid in order}


def read_answer(text: str, options: list[dict], rules: Rules) -> Reading:
    """Score ``text`` against ``options`` (each with ``patterns`` and ``when_denied``)."""
    cleaned = clean(text, rules)
    compiled = {o["id"]: [(re.compile(p[0]), float(p[1]), p[2] if len(p) > 2 else "") for p in o.get("patterns", [])]
                for o in options}
    denied_w = {o["id"]: [(re.compile(p), float(w)) for p, w in o.get("when_denied", [])] for o in options}
    # the field a goal lies in, which denied denies the goal ("pas d'IA": no LLM inference)
    field_w = {o["id"]: [(re.compile(p), float(w)) for p, w in o.get("denied_by", [])] for o in options}
    ids = [o["id"] for o in options]
    topics = [p for pats in compiled.values() for p, _, _ in pats] + \
        [p for d in list(denied_w.values()) + list(field_w.values()) for p, _ in d]
    topics += [d[0] for d in rules.denials + rules.novice] + list(rules.prerequisites.values())
    denied = dict.fromkeys(ids, 0.0)      # an option's own words in a denied clause
    shared: list[tuple[list[str], float]] = []
    hits: dict[tuple[str, int], tuple[float, bool]] = {}
    own = dict.fromkeys(ids, 0.0)
    up = dict.fromkeys(ids, 0.0)
    claimed = dict.fromkeys(ids, 0.0)     # evidence that can contradict a denial
    ruled_out: set[str] = set()
    narrow_out: set[str] = set()          # ruled out only by a denial of a narrow topic ("TMA jamais")
    broad_out: set[str] = set()
    excludes: set[str] = set()
    vague_points: list[set[str]] = []
    facts: dict[str, bool] = {}
    understood = False
    previous = ""
    read: list[tuple[Clause, Clause]] = []     # (as cut, after a self-negating pattern is consumed)
    denied_by: dict[str, str] = {}              # option -> the clause that denies it
    cut = clauses(cleaned, rules, topics)
    every_pattern = [p for pats in compiled.values() for p, _, _ in pats]
    # "je maîtrise TMA... enfin, à peu près": a short clause with no topic of its own that
    # hedges or says "partly" qualifies the clause before it.
    said = [c for c in cut if not _INTERJECTION.fullmatch(c.text)]
    qualified = {id(said[k]) for k in range(len(said) - 1) if not any(t.search(said[k + 1].text) for t in topics) and
                 (rules.partial.search(said[k + 1].text) or rules.unsure.search(said[k + 1].text))}
    # "pourquoi synchroniser entre deux noyaux serait mauvais, je ne l'ai jamais compris": a clause
    # with no topic of its own that denies in the first person says it of the prerequisite named
    # just before; not one about the rest ("warp oui, le reste non"), nor a bare "sans" ("on ne
    # peut pas faire de TMA sans").
    # A bare "non" after it ("les mbarrier, j'ai lu un truc dessus, mais non") denies it too
    # (paths_dev8: 1 of 45 megakernels readers taken as knowing what they said they did not).
    # So does not having looked under it ("…, sans vraiment regarder ce qu'il y a dessous").
    denied_after = {id(said[k]) for k in range(len(said) - 1) if said[k + 1].negative and
                    (_FIRST_PERSON.search(said[k + 1].text) or _BARE_NO.fullmatch(said[k + 1].text.strip()) and not text.rstrip().endswith("?")
                     or _WITHOUT_LOOKING.match(said[k + 1].text)) and
                    not any(t.search(said[k + 1].text) for t in topics) and not _THE_REST.search(said[k + 1].text)}
    # "les mbarrier je les ai jamais écrites à la main, par contre je sais ce que c'est": a clause
    # with no topic of its own that knows what "it" is says so of the prerequisite just before;
    # never having written one is no ignorance of it (paths_dev19: 1 Hopper reader of 45).
    known_after = {id(said[k]) for k in range(len(said) - 1) if not said[k + 1].negative and
                   IT_IS_KNOWN.search(said[k + 1].text) and not any(t.search(said[k + 1].text) for t in topics)}
    # "TMA, je l'ai utilisé une fois via CUTLASS": a prerequisite named alone, then taken up by
    # a pronoun in the clause after it, is what that clause says of it (paths_dev25: 1 optimiser
    # of 45 was asked the TMA he said he used without looking under it).
    resumed = {id(said[k]): said[k + 1] for k in range(len(said) - 1)
               if any(p.search(said[k].text) for p in rules.prerequisites.values()) and
               not said[k].negative and not _FIRST_PERSON.search(said[k].text) and content_words(said[k].text) <= 2 and
               _RESUMED_BY.search(said[k + 1].text) and
               not any(p.search(said[k + 1].text) for p in rules.prerequisites.values())}
    # "mbarrier ok chepa": a clause with no topic of its own and a word the reader does not know
    # may take back what the clause before affirms; that clause's prerequisites are asked.
    murky = {id(said[k]) for k in range(len(said) - 1) if not any(t.search(said[k + 1].text) for t in topics) and
             _strange(said[k + 1].text, rules)}
    levels = any(o in rules.ladder for o in ids)
    previous_negative = True
    little = False
    wished_before = False
    last_known = clause_known = None      # what the clause before said of its prerequisites
    last_named = ""                       # the prerequisite named last in the text, in any clause before
    same_as: list[tuple[str, str]] = []   # "TMA pareil": (that prerequisite, the one it is said like)
    for raw in cut:
        clause = consume_negation(raw, every_pattern)
        if clause.negative and _RELATIVE.match(clause.text):
            # "à ma direction qui n'y connaît rien": a denial about someone else says nothing of
            # the reader (on paths_dev4 it ruled out the reader's own wish to understand).
            continue
        if _NAMING.search(clause.text):
            continue
        read.append((raw, clause))
        # "j'ai lu un billet sur les megakernels et je veux comprendre ça précisément": in a wish,
        # a demonstrative stands for what the clause before named (goals only: a level's "ça"
        # after a denial would read the denied words as a claim).
        seen = clause.text
        if not levels and not clause.negative and not previous_negative and rules.wish.search(clause.text) and \
                _THAT.search(clause.text):
            seen = previous + " " + clause.text
        # "je veux pas coder de noyaux": once a self-negating pattern took the negation, the
        # other patterns read what is left; the denied kernels are no wish for kernels
        # (paths_dev16: 1 no-code reader of 45 asked between "comprendre" and a first kernel).
        rest = without_negated(seen, every_pattern) if raw.negative and not clause.negative else seen
        previous_negative = clause.negative
        last_known, clause_known = clause_known, None
        # "mon premier noyau, vu que j'en ai jamais écrit": the pronoun stands for the topic of
        # the clause before; the denial rules read them together.
        subject = clause.text
        if clause.negative and _PRONOUN.search(clause.text) and not any(t.search(clause.text) for t in topics):
            subject = previous + " " + clause.text
        # « je veux écrire mon premier noyau, sauf que je veux pas en écrire »: in a goal's denied
        # wish, « en » stands for the kernels of the clause before, which it denies (paths_dev25:
        # 1 of its 45 answers to be asked was recommended on as a first kernel)
        kernels = _KERNEL_NOUN.search(previous)
        denied_text = f"{clause.text} {kernels.group(0)}" if (
            not levels and kernels and clause.negative and rules.wish.search(clause.text) and
            _IT_OBJECT.search(clause.text) and not _KERNEL_NOUN.search(clause.text)) else clause.text
        if not _INTERJECTION.fullmatch(clause.text.strip()):
            # "I optimize CUDA kernels, well, I've never actually written one": "one" reaches
            # past the "well" to the kernels (paths_dev10: 1 contradiction of 11 not asked)
            previous = clause.text
        # "I know roughly that a warp is a group of 32 threads": the right definition, said; the
        # hedge is on the wording, not on the fact (paths_dev26: 1 PyTorch reader of 45 asked warp)
        defined = clause.knowing and not clause.negative and bool(DEFINED.search(clause.text))
        partial = bool(rules.partial.search(WORDING.sub(" ", clause.text) if defined else clause.text)) or clause.weak
        # "débutant en Hopper", "novice with TMA": the domain named is what the reader lacks;
        # its words are no evidence of its level, and a prerequisite named is not known.
        beginner = beginner_in(clause.text, compiled, rules) if not clause.negative and \
            any(p.search(clause.text) for p, _, _, _ in rules.novice) else None
        partial = partial or beginner is not None
        # Known only when said plainly: "TMA je crois", "mbarriers I'm shaky on", "je maîtrise
        # TMA… enfin, à peu près" are not (nor evidence of writing with it).
        unsure = partial or id(raw) in qualified or bool(rules.unsure.search(clause.text))
        # "TMA, je l'ai utilisé une fois via CUTLASS sans vraiment regarder ce qu'il y a dessous":
        # the name is as doubted as the clause that takes it up
        taken_up = resumed.get(id(raw))
        unsure = unsure or taken_up is not None and (taken_up.negative or id(taken_up) in denied_after or
                                                     bool(rules.partial.search(taken_up.text)))
        names_prerequisite = any(p.search(clause.text) for p in rules.prerequisites.values())
        # "un peu de CUDA", "des trucs sur les GPU": the clause's evidence counts half.
        vague = bool(rules.vague.search(clause.text)) or clause.weak
        # Use that has only begun, or happened once ("J'ai commencé à utiliser TMA sur un H100
        # récemment", "TMA, je l'ai utilisé une fois via CUTLASS"), and what comes with it
        # ("…, avec les mbarriers qui vont avec"): level evidence at half weight, as in a vague
        # clause, but no hesitation (paths_dev25: 2 optimisers of 45 asked about Hopper).
        # ("TMA, je l'ai utilisé une fois": the name takes the pronoun's clause)
        little = levels and not clause.negative and bool(
            _LITTLE_USE.search(clause.text) or little and _WITH_IT.match(clause.text) and not _SUBJECT_OF.search(clause.text)
            or id(raw) in resumed and _LITTLE_USE.search(resumed[id(raw)].text))
        # "I code in C and want to write CUDA kernels": what a reader wishes to do is no level
        # they have (it read as simple kernels, sure, before); the goal question reads wishes.
        wished = levels and not clause.negative and bool(_WISH_VERB.search(clause.text))
        # "TMA I've used via CUTLASS": a library wrote those kernels, the reader used its feature;
        # level evidence at half weight, none from the library's name, no hesitation (paths_dev26:
        # 1 optimiser of 45 asked between his rung and Hopper).
        via = levels and not clause.negative and names_prerequisite and bool(_VIA_LIBRARY.search(clause.text))
        little = little or via
        rest = _VIA_LIBRARY.sub(" ", rest) if via else rest
        # "les megakernels, parce qu'on me dit que c'est l'avenir de l'inférence": a reason that
        # is not the reader's own wish names the goal's why, not a second goal; its words count
        # half (on paths_dev6 it made 1 clear megakernels answer of 45 look like two goals).
        # What others say of a goal after the reader's wish ("je veux comprendre les megakernels,
        # on m'a dit que c'était l'avenir de l'inférence") is hearsay, not a second wish: half
        # weight too (paths_dev16: 1 megakernels reader of 45 asked). Said before the wish, it
        # names what the wish is about ("on m'a dit que les megakernels c'était l'avenir, je
        # veux comprendre précisément").
        aside = not levels and (clause.reason and not _FIRST_PERSON.search(clause.text) or
                                wished_before and bool(_HEARSAY.search(clause.text))) and \
            not rules.wish.search(clause.text)
        wished_before = wished_before or bool(rules.wish.search(clause.text))
        for oid, pats in compiled.items():
            for n, (pattern, weight, kind) in enumerate(pats):
                if wished and pattern.search(seen):
                    understood = True
                    continue
                if beginner and oid in beginner and pattern.search(seen):
                    understood = True
                    continue
                if pattern.search(seen if NEGATION.search(pattern.pattern) else rest) and \
                        (not clause.negative or self_negating(pattern, clause.text)):
                    understood = True
                    # "je connais TMA" is no evidence of "j'écris des noyaux avec TMA", and a
                    # pattern counts once per answer, at its strongest.
                    # "je sais pourquoi cudaDeviceSynchronize entre deux noyaux est mauvais" states a
                    # prerequisite, it claims no level: it cannot make a contradiction.
                    # "… pour notre moteur d'inférence": a goal's word in a possessive purpose says
                    # where the wish applies, not a second wish (paths_dev6: 1 clear megakernels
                    # answer of 45 asked between the two); half weight, in goal answers only.
                    where = not levels and bool(_FOR_OURS.search(seen[:pattern.search(seen).start()]))
                    # A little use is use ("pandas, numpy, un peu de PyTorch"), unless the clause's
                    # hedge may also be about a rung above ("pytorch + un peu de cuda simple").
                    used = "use" in kind and not any(
                        o != oid and o in rules.ladder[rules.ladder.index(oid) + 1:] and
                        any(p.search(seen) for p, _, _ in compiled[o]) for o in compiled) if levels else False
                    full = not ("fact" in kind and clause.knowing) and (used or not vague and not partial) and not little \
                        and not aside and not where and not (levels and _SEEN_IN.search(clause.text))
                    # A job title or a field ("data scientist") says what the reader is, not
                    # what they use: no claim (paths_dev3/5: "data scientist, numpy …, no GPU
                    # programming" was lifted to PyTorch by the title alone).
                    # Kernels named with a "yes" after them are kernels written ("hopper kernels
                    # w/ TMA, yes": paths_dev22, once "w/" no longer cut the kernels off their TMA,
                    # 1 Hopper reader of 45 was asked about the level).
                    said_known = clause.knowing and not (_KERNEL_NOUN.search(clause.text) and
                                                         not _KNOWING_VERB.search(clause.text))
                    is_claim = full and not (names_prerequisite and said_known) and "title" not in kind
                    # Heard of, partly known ("entendu parler de TMA", "TMA vaguement"): no
                    # evidence of writing such kernels at all.
                    # Knowing what TMA is says nothing of writing Hopper kernels ("je sais ce
                    # qu'est une mbarrier et une copie TMA": paths_dev3 read an optimiser as
                    # Hopper at half weight, and asked).
                    value = 0.0 if (unsure or clause.knowing) and "fact" in kind else weight if full else weight / 2
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
                (narrow_out if clause.negative and not general else broad_out).update(o for o in out if o in own)
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
                    if "fact" not in kind and pattern.search(denied_text) and not self_negating(pattern, clause.text):
                        denied[oid] += weight
                        denied_by.setdefault(oid, clause.text)
            for oid, pats in denied_w.items():
                for pattern, weight in pats:
                    if pattern.search(clause.text):
                        own[oid] += weight
                        understood = True
            for oid, pats in field_w.items():
                for pattern, weight in pats:
                    if pattern.search(clause.text):
                        denied[oid] += weight
                        denied_by.setdefault(oid, clause.text)
                        understood = True
        found = _named_in_order(clause.text, rules)
        if last_named and len(found) == 1 and found[0] != last_named and _ALSO.search(clause.text):
            # only the name and « pareil »: a clause with a word of its own (« TMA j'utilise
            # aussi ») says its own fact
            rest = _ALSO.sub(" ", rules.prerequisites[found[0]].sub(" ", clause.text))
            if not any(len(w) > 3 for w in rest.split()):
                same_as.append((found[0], last_named))
        last_named = found[-1] if found else last_named
        for pid in rules.prerequisites:      # in the rules' order: ``clause_known`` is folded in it
            if pid in found:
                understood = True
                if taken_up is not None:
                    # "TMA, je l'ai utilisé une fois …, sans vraiment regarder ce qu'il y a dessous"
                    known = _known(taken_up, id(taken_up) in denied_after or bool(rules.partial.search(taken_up.text)),
                                   rules)
                    known = True if id(taken_up) in known_after else known
                else:
                    known = _known(clause, unsure or id(raw) in denied_after, rules, levels and
                                   pid in rules.kernels_with and bool(rules.kernels_with[pid].search(clause.text)))
                if known is None and _WITH_IT.match(clause.text) and not clause.negative and \
                        not _SUBJECT_OF.search(clause.text):
                    known = last_known      # "j'ai commencé à utiliser TMA, avec les mbarriers qui vont avec"
                known = None if known and id(raw) in murky else known
                if known is None and _ALSO.search(clause.text):
                    known = last_known      # "mbarriers fine; the sync thing too": as the clause before
                elif last_known is False and _ALSO.search(clause.text) and not NEGATION.search(clause.text) and \
                        not AFFIRM.search(clause.text) and not _AFFIRMED.search(clause.text):
                    # "TMA jamais vu, mbarrier pareil": the same denial (paths_dev19: read as known)
                    known = False
                if id(raw) in known_after:
                    known = True            # "les mbarrier je les ai jamais écrites, par contre je sais ce que c'est"
                clause_known = known if clause_known is None else clause_known and known
                if known is False or facts.get(pid) is False:
                    facts[pid] = False
                elif known:
                    facts[pid] = True
    plain = dict.fromkeys(ids, 0.0)      # evidence but job titles and fields
    fact_claimed = dict.fromkeys(ids, 0.0)
    for (oid, n), (value, is_claim) in hits.items():
        (up if "up" in compiled[oid][n][2] else own)[oid] += value
        claimed[oid] += value if is_claim else 0.0
        fact_claimed[oid] += value if is_claim and "fact" in compiled[oid][n][2] else 0.0
        plain[oid] += 0.0 if "title" in compiled[oid][n][2] else value
    supported: set[str] = set()
    for targets, w in shared:
        if targets:
            # A tie of two supported rungs goes to the higher: the lower one's background moves
            # up to it anyway ("je code en Python, j'entraîne des modèles PyTorch, jamais écrit de
            # CUDA"; on paths_dev4 it went to "programmer" and the answer was asked for nothing).
            # With no evidence either way, the first ("je programme, rien sur GPU").
            # A title alone does not pick the rung ("data scientist, numpy …, no GPU programming":
            # paths_dev3 sent it to PyTorch).
            target = max(targets, key=lambda t: (plain[t], own[t] + up[t],
                                                 targets.index(t) if own[t] + up[t] > 0 else -targets.index(t)))
            own[target] += w
            supported.add(target)
    if not any(o in rules.ladder for o in ids):
        # Goals: "accélérer PyTorch, mais je ne veux plus jamais toucher à PyTorch".
        ruled_out.update(o for o in ids if denied[o] >= 1.5)
    else:
        # Levels: a level whose own words are denied and never claimed ("never used a GPU, not
        # even through pytorch"): on paths_dev5 the denied PyTorch still took the background's
        # weight and the answer was asked between PyTorch and "programmer".
        # Not the first rung, which supposes nothing ("not a programmer really, I'm a PM").
        ruled_out.update(o for o in ids if denied[o] >= 1.5 and claimed[o] < CLAIM_MIN and o != rules.ladder[0])
        broad_out.update(o for o in ids if denied[o] >= 1.5 and claimed[o] < CLAIM_MIN and o != rules.ladder[0])
    # Using one prerequisite and never another ("les mbarriers, j'en ai utilisé avec cp.async,
    # mais TMA jamais") is coherent: a claim made only of prerequisite words does not contradict
    # a level ruled out by a narrow denial alone (paths_dev6: 1 optimiser of 45 asked about it).
    contradiction = tuple(o for o in ids if o in ruled_out and claimed[o] - (
        fact_claimed[o] if o in narrow_out and o not in broad_out else 0.0) >= CLAIM_MIN)
    allowed = [o for o in ids if o not in ruled_out]
    scores = {o: own[o] + up[o] for o in allowed}
    ladder = [o for o in rules.ladder if o in scores]
    for i, low in enumerate(ladder):
        higher = [h for h in ladder[i + 1:] if claimed[h] >= _LADDER_MIN]
        if higher and up[low]:
            scores[higher[-1]] += up[low]
            scores[low] -= up[low]
    if levels and any(plain[o] > 0 for o in scores):
        # A rung that only a title or a field speaks for ("data scientist" for PyTorch) counts
        # half beside a rung with evidence of its own ("numpy and pandas all day, no GPU
        # programming at all": paths_dev3 asked between the two).
        for o in scores:
            if plain[o] == 0 and o not in supported:
                scores[o] /= 2
    if contradiction:
        best_allowed = max(allowed, key=lambda o: scores[o], default=None)
        pair = [best_allowed] if best_allowed and scores[best_allowed] > 0 else []
        contradiction = tuple(pair + [max(contradiction, key=lambda o: claimed[o])])
    ranked = tuple(sorted(((o, scores.get(o, 0.0)) for o in ids), key=lambda s: -s[1]))
    top_hits = [key for key in hits if ranked and key[0] == ranked[0][0]]
    top = ranked[0][1] if ranked else 0.0
    runner = ranked[1][1] if len(ranked) > 1 else 0.0
    # Hesitating between options ("un peu de CUDA, un peu d'optimisation, je sais plus trop").
    # A hedge in a clause that names a prerequisite ("sauf que la synchro entre noyaux jsuis pas
    # sur") doubts that prerequisite, which is then asked, not the level (paths_dev9: 1 Hopper
    # reader of 45 asked about the level for it).
    about_self = " ".join(c.text for _, c in read if not any(p.search(c.text) for p in rules.prerequisites.values()))
    hedged = bool(rules.hedges.search(about_self)) and runner > 0 or bool(rules.undecided.search(cleaned))
    # Experience said to be long past ("j'ai fait du CUDA il y a longtemps"): how much is left is
    # the reader's to say, so the level is asked (paths_dev4: recommended on as simple kernels);
    # not on the ladder's first rung, with none below it ("un peu de PHP il y a longtemps").
    hedged = hedged or bool(levels and ranked and ranked[0][0] != rules.ladder[0] and
                            rules.long_past.search(cleaned))
    # Nothing but a job title or a field ("développeur", "data scientist", "l'IA"): not clear enough.
    title_only = bool(top_hits) and ranked[0][0] not in supported and \
        all("title" in compiled[o][n][2] for o, n in top_hits)
    # A vague clause that speaks for another option than the best ("dev backend, et j'ai
    # vaguement bidouillé des trucs sur GPU"): the answer is not clear.
    # Not one about rungs below a claimed best ("J'écris des noyaux pour H100 avec TMA … côté
    # PyTorch je suis un peu rouillé"): being rusty below says nothing against the rung above
    # (paths_dev25: 1 Hopper reader of 45 asked about the level).
    best = ranked[0][0] if ranked else None
    below = set(rules.ladder[:rules.ladder.index(best)]) if levels and best in rules.ladder and \
        claimed[best] >= CLAIM_MIN else set()
    # Nor one about rungs the reader's own stated facts rule out ("jamais écrit de noyau …, je
    # sais vaguement ce qu'est CUDA sans plus" is the PyTorch level; paths_dev26: 1 PyTorch
    # reader of 45 asked about the level).
    vague_points = [p - excludes if levels else p for p in vague_points]
    elsewhere = bool(ranked) and any(p and best not in p and not p <= below for p in vague_points)
    hedged = hedged or title_only or elsewhere
    if not levels:
        # A goal answer that names two goals or more, whatever their polarity, with a hesitation
        # or as alternatives ("comprendre… ou coder… ou les LLM, je sais pas"): the goal is asked
        # again (paths_dev5: recommended on the first one named).
        named = {o for o, pats in compiled.items() if any(p.search(cleaned) for p, _, _ in pats)}
        # "or"/"ou" in the reader's own spelling: folded, "où" ("comprendre où part le temps") would read as one.
        hedged = hedged or len(named) >= 2 and bool(rules.hedges.search(cleaned) or
                                                    _OR.search(_OR_OTHERS.sub(" ", text.lower())))
    if top <= 0:
        match = Match(None, 0.0, ranked)
    else:
        confidence = top / (top + runner)
        match = Match(ranked[0][0], min(confidence, 0.6) if hedged or contradiction else confidence, ranked)
    clash = find_clash(read, compiled, rules, topics, contradiction[-1] if contradiction else None)
    if not clash and contradiction and not levels and contradiction[-1] in denied_by:
        # a goal denied by its field ("pas d'IA surtout" / "l'inférence de LLM"): the two clauses
        claim = next((c.text for _, c in read if contradiction[-1] in claims_of(c, compiled, rules)), "")
        clash = (denied_by[contradiction[-1]], claim) if claim and claim != denied_by[contradiction[-1]] else ()
    if not any(o in rules.ladder for o in ids):
        excludes |= ruled_out       # a goal whose own words the answer denies
    claims: dict[str, str] = {}
    before = ""
    for _, c in read:
        if _FIRST_PERSON.search(c.text) and not rules.wish.search(c.text):
            # "mon premier noyau cuda, j'en ai déjà écrit des dizaines": the pronoun stands for
            # the kernels of the clause before, so the clause claims them (paths_dev21: the one
            # confident recommendation of 135 that contradicted the reader's "gpu jamais").
            noun = _KERNEL_NOUN.search(before) if _PRONOUN.search(c.text) else None
            seen = replace(c, text=f"{c.text} {noun.group(0)}") if noun else c
            for oid in claims_of(seen, compiled, rules):
                claims.setdefault(oid, source_span(c.text, text, SPLIT))
        before = c.text
    # The words around each prerequisite's name must say what the clauses say (``assistant.paths.read.window``).
    facts = check_facts(cleaned, facts, rules)
    # « Les mbarrier j'ai lu la doc mais jamais utilisé, disons que je sais pas vraiment. TMA
    # pareil. »: said like the one before, as it was finally read, asked if it is (paths_dev23:
    # TMA was taken as known while mbarrier was asked)
    for pid, like in same_as:
        if like in facts:
            facts[pid] = facts[like]
        else:
            facts.pop(pid, None)
    facts.update(_only_some_of_list(cleaned, rules))
    if levels and "tma" in rules.prerequisites and "tma" not in facts and _LABEL_ONLY.fullmatch(cleaned.strip(" .!")) \
            and "hopper" in cleaned and "tma" in cleaned:
        # "Hopper kernels, TMA", « hopper, TMA, tout ça »: nothing but the Hopper level's own label
        # ("Écrire des noyaux Hopper avec TMA"), picked in the reader's words (paths_dev26: 2
        # Hopper readers of 45 asked TMA)
        facts["tma"] = True
    return Reading(match, contradiction, facts, understood or top > 0, hedged, tuple(o for o in ids if o in excludes),
                   tuple(source_span(c, text, SPLIT) for c in clash), tuple(claims.items()),
                   tuple((o, source_span(denied_by[o], text, SPLIT)) for o in ids if o in excludes and o in denied_by))
