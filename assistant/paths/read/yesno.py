"""Read an answer to a yes/no question (a path-F prerequisite): yes, no, or neither.

``read_yes_no(text, rules)`` returns True, False or None. "Partly" answers, knowing the name,
hesitations and learning or struggling ("je l'apprends", "I struggle with it")
count as no, unless an explicit yes only rounds itself off ("oui en gros", "yes kind of", "je
crois, oui") (the reading-path page sends a reader who lacks a prerequisite to CUDA moderne
first); a bare question back ("oui ?"), "mouais", or a yes with a word the reader's lexicon does
not hold ("ouais tkt") is None, so the question is asked again. Limits: French and English words only.
"""
from __future__ import annotations

import re

from assistant.paths.read.clauses import AFFIRM, HEARD_OF, NEGATION, Rules, clean, unknown_words

_YES_WORDS = {"oui", "yes", "yep", "yup", "yeah", "ouais", "o", "y", "absolument", "absolutely", "evidemment",
              "certainement", "certainly", "sure", "definitely", "definitivement", "carrement", "grave", "ofc",
              "obviously", "si", "bah", "ben", "bien", "exactement", "exactly", "parfaitement", "affirmatif",
              "correct", "yess", "yas", "naturellement", "of", "ok", "okay", "ya", "yah", "yea", "yeh", "ouai", "ouep",
              "wi"}
_NO_WORDS = {"non", "no", "nope", "nan", "bof", "moyen", "idk", "dunno", "na", "n", "jamais", "never", "pas", "nah", "negatif", "nein", "aucune",
             "aucun", "rien", "not", "nada", "niet"}
_ME = re.compile(r"(?:^|\b)(?:je|j'|j(?= )|i|i'm|me|m')(?:\b|(?<=')|$)")
# Someone or something else as the subject: an explanation, not the reader.
_OTHER = re.compile(r"\b(?:on|il|elle|ils|elles|he|she|they|l'hote|hote|host|cpu|gpu|programme|program)\b")
_THINK_YES = re.compile(r"\b(?:je (?:crois|pense) que oui|i think so|i believe so|je pense bien|il me semble que oui)\b")
_YES_ELSE = re.compile(r"\b(?:tout a fait|bien sur|of course|i think so|je pense|je crois|probably|probablement|"
                       r"j'en ai (?:deja )?(?:utilise|ecrit|fait)|i do|i have|i've used|used (?:it|them)|utilise|"
                       r"connu|known)\b")

_PLAIN_YES = {"oui", "yes", "yep", "yup", "yeah", "ouais", "ouai", "ya", "yea"}
# "cé quoi ?", "euh pk ce serait mal ?": asking what it is, or why, says it is not known
# (paths_dev14: 2 of 180 prerequisite answers were asked again and again)
_ASKS_WHAT = re.compile(r"\b(?:quoi|koi|what|whats|what's|pourquoi|pk|pq|why|kesako|kezako|hein|huh)\b")
# « keske c », « c koi » with no question mark: asking what it is
_WHAT_IS = re.compile(r"^(?:keske|kesako|kezako|c koi|c quoi|ce quoi|cé quoi|ce koi|c'est quoi|qu'est-ce que c|what'?s that|"
                      r"what is it|what's this)\b")
# "yeah bc launch overhead", "ya bc of …": "bc" is "because", said after the yes
_BECAUSE = re.compile(r"\b(?:bc|bcs|cuz|coz|cause|pcq|pck)\b")
# "oui vite fait, 32 threads qui avancent ensemble", "oui vaguement, une copie asynchrone": the
# four dev answers of this shape were all labelled known (paths_dev7, 9, 14, 16); a bare
# "vaguement oui" or "oui, vite fait", with nothing said after it, stays a no.
_ROUNDING = re.compile(r"\b(?:en gros|a peu pres|(?:vite fait|vaguement)(?=,? \w+ \w+)|grosso modo|globalement|dans les grandes lignes|roughly|kind of|kinda|"
                       r"basically|mostly|more or less|in broad strokes|je crois|je pense|i think|i guess|i believe)\b")

_GUESSED_WHY = re.compile(r"(?:(?:euh+|bah|ben|hmm+|um+)\W+)?(?:parce qu\w*|pck|pcq|because|bc|cuz|car)\b")
_EVEN_IF = re.compile(r"\b(?:meme si|even if|even though|bien que|quoique)\b")
_EXPLAINED_MIN = 5      # words of a yes that goes on to explain (« ouais tkt c bon » has 4)
_OWN_WORDS = frozenset(_YES_WORDS | _NO_WORDS) | frozenset(
    w for pattern in (HEARD_OF, _ME, _OTHER, _THINK_YES, _YES_ELSE) for w in re.findall(r"[a-z]+", pattern.pattern))


def read_yes_no(text: str, rules: Rules, asked: str = "") -> bool | None:
    """An answer to a yes/no question: True, False, or None when it says neither or asks back.

    "Partly" answers ("un peu", "vaguement", "kind of, no") and "I know the name" count as
    no: the page sends a reader who lacks a prerequisite to CUDA moderne first. ``asked``: the
    prerequisite asked about, whose right explanation (``Rules.explanations``) answers for a yes
    when it is stated plainly, and for a no when it is put as a guess."""
    cleaned = clean(text, rules)
    words = re.findall(r"[\w']+", cleaned)
    if not words:
        return None
    reason = rules.explanations.get(asked)
    if reason is not None and words[0] not in _YES_WORDS | _NO_WORDS and not set(words) & _PLAIN_YES and \
            reason.search(cleaned) and \
            not HEARD_OF.search(cleaned) and not (_ME.search(cleaned) and NEGATION.search(cleaned)):
        guessed = "?" in text or bool(rules.unsure.search(cleaned) or rules.hedges.search(cleaned) or
                                      rules.partial.search(cleaned))
        return not guessed and not _strange(cleaned, rules)
    if reason is not None and text.rstrip().endswith("?") and _GUESSED_WHY.match(cleaned):
        return False            # « euh, parce que ça ralentit ? »: a reason guessed, not known
    if HEARD_OF.search(cleaned):
        return False
    # "je l'apprends en ce moment", "yes but I struggle with it": not known yet; said of the
    # reader, not in an explanation ("oui, l'hôte bloque et on perd le recouvrement").
    if rules.not_yet.search(cleaned) and (_ME.search(cleaned) or not _OTHER.search(cleaned)):
        return False
    # "euh pourquoi c'est mauvais ? je le mets partout": the question may come first
    if ("?" in text and _ASKS_WHAT.search(cleaned) or _WHAT_IS.match(cleaned)) and \
            words[0] not in _YES_WORDS:
        return False
    # "je dirais que ça bloque le CPU ?": a guess put as a question is no (paths_dev25: 1 of 45
    # sync answers asked again)
    if text.rstrip().endswith("?") and rules.unsure.search(cleaned):
        return False
    if text.rstrip().endswith("?") and not NEGATION.search(cleaned) and not rules.partial.search(cleaned):
        return None     # "oui ?": a question back, asked again; "non, pourquoi ?", "vaguement… ?" are no
    # "un groupe de 32 threads, c'est ça ? oui": a check that ends on a plain yes
    if len(words) > 1 and words[-1] in _PLAIN_YES and "?" in text and not NEGATION.search(cleaned) and \
            not rules.partial.search(cleaned) and not any(w in _NO_WORDS for w in words):
        return True
    if _THINK_YES.search(cleaned) and not NEGATION.search(cleaned):
        return True     # "je crois que oui, ça bloque le CPU": a yes that says why
    # "oui en gros", "yes kind of, the GPU idles", "je crois, oui": an explicit yes that only
    # rounds itself off is a yes (so all five test writers read it); "un peu", "vaguement",
    # "bof" without it, or with a denial, still count as no
    if (words[0] in _PLAIN_YES or words[-1] in _PLAIN_YES) and not NEGATION.search(cleaned) \
            and not any(w in _NO_WORDS for w in words):
        rounded = _ROUNDING.sub(" ", cleaned)
        if rounded != cleaned and not rules.partial.search(rounded) and not _strange(rounded, rules):
            return True
    partial = bool(rules.partial.search(cleaned))
    if words[0] in _YES_WORDS and not (words[0] in {"bah", "ben", "bien", "of"} and len(words) == 1):
        # "of course not", "bien sûr que non", "oui mais pas vraiment": the denial wins; not one
        # in a concession ("oui, je sais ce que c'est même si je les écris pas": paths_dev19).
        said = _EVEN_IF.split(" ".join(words[1:]), maxsplit=1)[0]
        if partial or NEGATION.search(said):
            return False
        # "ouais tkt", "oui jcrois": a word nobody taught the reader may take the yes back; the
        # question is asked again rather than the prerequisite taken as known. A plain yes
        # followed by a sentence explains itself ("yeah it kills the overlap between kernels":
        # paths_dev19 asked it ten times).
        explained = words[0] in _PLAIN_YES and len(words) >= _EXPLAINED_MIN
        return None if _strange(cleaned, rules) and not explained else True
    if words[0] in _NO_WORDS:
        return False
    if NEGATION.search(cleaned) or partial or rules.hedges.search(cleaned):
        return False
    if AFFIRM.search(cleaned) or _YES_ELSE.search(cleaned):
        return None if _strange(cleaned, rules) else True
    return None


def _strange(cleaned: str, rules: Rules) -> bool:
    """A word of the yes itself (up to the first punctuation; "yes, it stalls the host" explains
    after it) that the reader's lexicon does not hold ("ouais tkt", "yep lol")."""
    head = re.split(r"[,;:.!?()]| - ", _BECAUSE.split(cleaned, maxsplit=1)[0], maxsplit=1)[0]
    return any(w not in _OWN_WORDS for w in unknown_words(head, rules))
