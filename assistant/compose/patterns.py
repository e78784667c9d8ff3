"""What a sentence of the guide is, read by its words: the patterns and tests that both the
candidates of a section (``assistant.compose.candidates``) and the composer's scoring read.

A sentence may announce the chapter (``META``: « Ce chapitre explique … »), announce a list it
does not give (``announced``: « … se repère par trois signaux. »), point at what follows
(``POINTS_AHEAD``) or at a program the answer does not show (``UNSHOWN``), lean on the sentence
before it (``ANAPHOR_START``, ``DEMONSTRATIVE``), give a cause, a contrast or a figure
(``CAUSE``, ``CONTRAST``, ``FIGURE``); ``never_quoted`` and ``never_leads`` say which sentences
are never quoted, or never open an answer.
"""
from __future__ import annotations

import re
from typing import Sequence

from ingest.analyzer import normalise_space


MAX_MERGED = 4        # « … par trois signaux. » + at most this many sentences that give them
# « Ce chapitre montre ce que coûte la divergence … » announces an answer, it is not one
META = re.compile(r"^(?:Dans |En )?(?:Ce|Cette|Ces|Le|La|Les) (?:chapitre|section|partie|page|chapitres|sections|"
                   r"parties)\b|^(?:Nous|On) (?:allons|verrons|va|verra)\b")
_COUNT = re.compile(r"\b(deux|trois|quatre|cinq|six|sept|huit|plusieurs|quelques|[2-8])\s+(?:\w+\s+){0,2}?"
                    r"(\w+s|\w+x)\b", re.I)
_COUNT_WORDS = {"deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8}
_ANNOUNCER_WORDS = 18
# « L'idée revient en 2025 parce que trois conditions se sont réunies. »: a count in the middle
# announces too when it counts things a list gives (not « 32 banques de 4 octets »), with an
# indefinite article (« les deux manières » names things already said)
_ANNOUNCED_MID = re.compile(r"(?<!\bles )(?<!\bdes )(?<!\bces )(?<!\bses )(?<!\bleurs )\b(deux|trois|quatre|cinq|six|sept|"
                            r"huit|plusieurs|quelques)\s+(?:\w+\s+)?(conditions|raisons|causes|signaux|étapes|règles|"
                            r"façons|manières|techniques|précautions|ingrédients|familles|niveaux|phases|types|options|"
                            r"questions|critères|leviers|principes|idées|problèmes|coûts|limites|approches|"
                            r"stratégies|choses|obstacles|conséquences|changements|leçons|erreurs|pièges|méthodes|"
                            r"solutions|usages|ancêtres|objectifs|rôles|choix|ingrédients|mécanismes|sources d'erreur)\b",
                            re.I)
# a lead must stand on its own: « Il a aussi rendu faux … », « Ces papiers sont derrière … »,
# « D'abord, les références bougent » need the sentence before them
ANAPHOR_START = re.compile(r"^(?:\*\*[^*]+\*\*\s*)?(?:Il|Elle|Ils|Elles|On y|Celui-ci|Celle-ci|Ceux-ci|Celles-ci|"
                            r"Cela|Ceci|Ça|C'est|Ce n'est|Là|Ici|D'abord|Ensuite|Enfin|Puis|Mais|Pourtant|Or|"
                            r"Inversement|En revanche|De plus|En outre|De même|Autrement dit|Dans ce cas|"
                            r"(?:Dans|Sur|Avec|Pour|À|En|Par) (?:ce|cet|cette|ces) \w+|Dans les deux cas|(?:Le|La) (?:premier|première|second|seconde|deuxième|troisième|"
                            r"dernier|dernière)|L'autre|Les deux|Tous deux|Toutes deux|Deux autres|Cette|Ces|Cet|Leur|Leurs|Son|Sa|Ses|"
                            r"Ce (?!qui|que|qu'|dont)\w+)\b")
DEMONSTRATIVE = re.compile(r"\b(?:ces|cette|cet)\s+\w+|\bdonc\b|\bce (?!qui|que|qu'|dont|sont|soit|n'|faisant|sera|serait)\w+",
                            re.I)
DEMONSTRATIVE_WORDS = 6   # « … applique ces règles pour vous »; later, « cette puce » names what the sentence said
SHORT_WORDS = 12      # « `do_bench` applique ces règles pour vous. » is given with the next sentence
# « Le tableau suivant donne les chiffres … »: it points at what follows, it says nothing itself
POINTS_AHEAD = re.compile(r"\b(?:suivante?s?|ci-dessous|ci-après|below|following)\b", re.I)
# « Exécuté normalement …, ce programme affiche `no error`. »: the program is in the chapter,
# not in the answer, so such a sentence never opens one (3 of the 25 dev leads judged partial
# or wrong in the fourth dev hand-read leaned on a program or an example not shown)
UNSHOWN = re.compile(r"\b(?:ce|cet|cette|ces) (?:programmes?|exemples?|listings?|extraits?|schémas?|figures?)\b|"
                      r"\bci-dessus\b|\bplus haut\b|\bthis (?:program|example)\b", re.I)
_CITATION_LIKE = re.compile(r"\bet al\.|\barXiv\b|\bISBN\b|\bdoi\.org\b")

# « parce qu\w* »: « parce que » as well as « parce qu'il » (a bare « parce qu » never matched « que »)
CAUSE = re.compile(r"\b(parce qu\w*|car|puisque|because|since|vient d\w*|viennent d\w*|provient|à cause|en raison d\w*|"
                    r"s'explique|dûe?s? à|due?s? à|tient à|faute d\w*|sinon|si bien que|de sorte que|"
                    r"provoqu\w*|survien\w*|se produit|sérialis\w*|"
                    r"aucune erreur|sans erreur|en silence|silencieu\w*)\b", re.I)
CONTRAST = re.compile(r"\b(alors que|tandis que|contrairement|à la différence|au lieu d|plutôt que|la différence|"
                       r"whereas|unlike|instead of|à l'inverse|en revanche)\b", re.I)
FIGURE = re.compile(r"\b(?:deux|trois|quatre|cinq|six|sept|huit|neuf|dix|douze|seize|vingt|trente|cent)\s+\w+|\d[\d\u202f\u00a0 ,.]*\s?(%|×|x\b|fois|[kKMGTP]?i?[oB]\b|[KMGT]o/s|[KMGT]B/s|octets?|bytes?|"
                     r"(?:[TGM])?FLOP|threads?|registres|cycles|bits?|ns|µs|us|ms|s\b|GHz|MHz|W\b|Go|Mo|Ko|"
                     r"Kio|Mio|Gio|To|blocs?|warps?|SM|éléments|jetons|tokens)"
                     # « 250 charges de travail », « 32 banques »: a count of things, not a year
                     r"|\b(?!(?:19|20)\d\d\b)\d+(?:,\d+)?\s(?:de\s)?[a-zà-ÿ]{3,}")


def announced(s: str) -> int:
    """How many things ``s`` announces (« … se repère par trois signaux. »), 0 when none."""
    if ":" in s:
        return 0
    m = _COUNT.search(s)
    if len(s.split()) > _ANNOUNCER_WORDS and not (m and len(s[m.end():].strip(" .").split()) == 0):
        return 0          # long, unless it ends on the count: « … font des choix opposés sur trois points. »
    mid = _ANNOUNCED_MID.search(s)
    if m is None and mid is None:
        return 0
    # « … se repère par trois signaux. », « Ce motif cumule deux handicaps sur GPU. »: the count
    # opens the sentence or closes it (two words may follow in a short one)
    tail = len(s[m.end():].strip(" .").split()) if m else 99
    if m is None or not (m.start() <= 3 or tail <= 1 or tail <= 2 and len(s.split()) <= SHORT_WORDS):
        if mid is None or "," in s[mid.end():] or " et " in s[mid.end():]:
            return 0      # the count is mid-sentence and not a list's, or the sentence gives the list
        m = mid
    return _COUNT_WORDS.get(m.group(1).lower(), int(m.group(1)) if m.group(1).isdigit() else MAX_MERGED + 1)


def followed_by(flat: str, s: str, nxt: Sequence[str]) -> bool:
    """Whether the sentences ``nxt`` follow ``s`` in the same paragraph of ``flat``."""
    return normalise_space(" ".join([s, *nxt])) in flat


def never_quoted(s: str) -> bool:
    """A reference, or a sentence whose ``**`` the splitter cut in two."""
    return bool(s.count("**") % 2 or _CITATION_LIKE.search(s))


def never_leads(s: str) -> bool:
    """It announces the chapter, points at what follows or at a program the answer does not show,
    or it is a displayed formula (« \\[ m' = \\max(m, …) \\] » led "what's the max value … in
    e5m2?" on its « max »)."""
    return bool(META.match(s) or POINTS_AHEAD.search(s) or UNSHOWN.search(s) or s.lstrip().startswith(("\\[", "$$")))
