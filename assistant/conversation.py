"""Resolve a follow-up question against the conversation so far.

``resolve(question, conversation, rewriter=None)`` returns a ``Resolved`` record whose
``query`` is what retrieval should search, texting spellings of question words written
out (« c koi » → « c quoi », ``standard_spelling``). With a ``rewriter`` (an LLM generator's
``rewrite``), the model restates the question on its own; if it fails or declines, the
deterministic rule applies: a question that opens with a connector (« et avec des tuiles
de 64 ? »), points back with a pronoun (« pourquoi est-elle plus rapide ? ») or is an
elliptical fragment (« en FP8 ? »), has an object pronoun or « y » that stands for
something named before (« comment on l'évite ? », « l'ordonnancement y est statique ? »,
« combien de blocs dedans ? »), compares with one side only (« en quoi c'est différent de
CUTLASS ? ») or asks for a part of the previous answer or for more of it (« montre-moi
l'exemple … », "show me the code", "what is the speedup?", « explique davantage ») gets
the previous question's topic prepended (``Resolved.own`` keeps the question as
typed and ``previous_chapters`` what the previous answer cited, so that
``assistant.search.followup`` weighs the follow-up's own words and those chapters); so does one that carries on (« maintenant … »,
"now …") or closes on "one" ("is it worth writing one?"). A request that names its subject
(« explique-moi la quantification ») is a new question, and so is one that says the subject
changes (« autre question : … », « rien à voir, mais … », « sinon, la mémoire unifiée … », "unrelated,
but …"): the marker is dropped from what is searched. On the 160 labelled dev conversations
(118 follow-ups, 42 new subjects) the rule misses 7 follow-ups (9 before the carrying-on,
closing "one" and change-of-subject patterns) and reads none of the 42 as a follow-up (1
before); two-turn answers citing the gold chapter: 185/193 → 186/193 over the four dev
files, 66/70 → 67/70 on dev3 (its half kept aside while the rules changed: 35/35 before and
after).
Politeness (« stp », "please") counts as no subject, a closing "too" or « aussi » and « les
deux » point back, and « mieux que X » compares with one side only. A rule follow-up whose topic
or own words are English has ``Resolved.language`` "en", so that the joined query gets the
English analysis (bridge, English vocabulary) while the answer keeps the user's language:
« et pour un MI300X ? » after an English question was refused, read as French. Over the six
dev files (333 conversations) two-turn answers citing the gold chapter: 323 → 326.
A short question with a question word of its own, informal ones included (« c koi la
coalescence »), is a new question: it is searched as typed, and the composer does not
repeat the previous answer's sentences in any case.
A rule follow-up that swaps one thing of the previous question for another of its kind (« et
en bf16 ? » after a question on FP16, "and a 4090?" after one on the H100) searches the previous
question with the thing replaced (``assistant.search.swap``); « pourquoi c'est plus rapide ? »,
whose « c'est » has no subject of its own, points back. Over the eight dev files (473
conversations) two-turn answers citing the gold chapter: 454 → 457; chat forms seen on later
rounds (« why tho », « tu peux montrer le code ? », « pourquoi autant ?? », « un exemple avec des
vrais chiffres », « X ça sert à quoi » as a new question): 579 → 584 of 613, then 648 → 651 of 683.
« why parity and not just a counter? » weighs a choice of the last answer against another and
points back; « thunderkittens c bien ? », an opinion of a thing the question before did not
name, is a new question (resolution right on 852 of the 930 labelled dev conversations, 850
before these and « c hyper lent »).
``joined(question, conversation)`` reads any second message as carrying on (``how`` "evidence"):
``assistant.answer`` tries it when a message read as new is only touched on by the guide alone.
A question read as new still carries the previous answer's chapters in ``previous_chapters``
(``how`` stays "none"): ``assistant.search.followup.carried_hits`` gives them a small bonus.
Limits: the rule looks one turn back and cannot tell a new short question that happens
to start with « et » from a follow-up; an English follow-up that names a fresh noun
without pointing back ("what changed in the next version?") is read as a new question.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

from ingest.analyzer import terms, words
from assistant.answer_records import Conversation, Turn
from assistant.inputs import language
from assistant.search.swap import swapped

Rewriter = Callable[[str, tuple[Turn, ...]], Optional[str]]

_CONNECTORS = ("et ", "et,", "mais ", "alors ", "puis ", "pareil", "idem", "même chose",
               "meme chose", "plutôt ", "plutot ", "ok ", "d'accord", "and ", "what about",
               "how about", "what if", "how come", "why not", "same ", "also ", "aussi ",
               # « donc avec 10 % non accéléré, le gain max c'est combien ? »: a conclusion drawn
               # from the previous answer
               "donc ", "du coup", "so ", "then ",
               # « maintenant en Triton ? », "now the shared-memory version": they carry on from the answer
               "now ", "now,", "maintenant ", "maintenant,", "ensuite ",
               # « pk pas juste lancer plus de blocs ? », "even the inline PTX?": they argue with or
               # stretch the previous answer (dev9: 2 of its 14 missed conversations)
               "pourquoi pas ", "pk pas ", "pq pas ", "even ", "même ", "meme ",
               # "wait, wasn't there a paper …?", « concrètement dans un pipeline à S étages … »: a
               # second thought on the answer, or the answer brought down to a case (dev: 4 of the
               # 1,383 labelled second messages open so, all follow-ups; none of the 5,499 standalone)
               "wait ", "wait,", "attends ", "attends,", "concrètement", "concretement", "concretely",
               "en pratique", "in practice")
_ANAPHORA = frozenset("ça ca cela celui-ci celle-ci ceux-ci celles-ci dernier dernière "
                      "cette cet ces là-dessus it this that these those they them "
                      # « combien de blocs max dedans ? », "what other calls do the same thing?"
                      "dedans dessus dessous same".split())
_PRONOUN = re.compile(r"(-(?:t-)?)?\b(il|elle|ils|elles)\b")   # group 1: inverted « est-elle »
# « faut-il », « y a-t-il », « que se passe-t-il », « vaut-il mieux »: no one is meant
_IMPERSONAL_VERBS = frozenset("faut a passe vaut agit semble suffit reste".split())
_IMPERSONAL_AFTER = frozenset("faut y s".split())          # « il faut », « il y a », « s'il »
_INFINITIVE_AFTER = re.compile(r"\b(de|d')\s*\w+(er|ir|re)\b")  # « est-il difficile de battre »
_CE_IS_SUBJECT = re.compile(r"\best-ce\b(?!\s*(que|qu'|qui))")   # « pourquoi est-ce lent ? »
_OBJECT_QUESTION = frozenset("quel quels quelle quelles combien".split())
# « comment le mesurer ? »: an object pronoun between a question word and an infinitive
_CLITIC_INFINITIVE = re.compile(r"\b(comment|pourquoi|peut-on|faut-il|dois-je|puis-je|peut-il|peux-je|"
                                r"où|quand)\s+(le|la|les|l')\s*\w+(er|ir|re)\b")
# « comment on l'évite ? », « un seul thread qui la lance ? »: an object pronoun after a subject
# pronoun or « qui » stands for something named before (an article cannot follow them)
_CLITIC_OBJECT = re.compile(r"\b(on|je|j'|tu|nous|vous|qui|ne|n')\s*(le|la|les|l')\s*\w")
# « je peux le mesurer moi-même comment ? »: the same pronoun after a modal verb; « comment je sais
# si mon noyau en utilise ? », « j'en ai besoin ? »: « en » before a verb stands for what was just
# named, the preposition never follows a subject (dev17: 2 of its 48 follow-ups read as new)
_MODAL_CLITIC = re.compile(r"\b(?:je|j'|tu|on|nous|vous)\s*(?:peux|peut|pouvons|pouvez|dois|doit|devons|devez|"
                           r"vais|va|allons|allez|veux|veut|voulons|voulez|sais|sait)\s+(?:le|la|les|l')\s*\w+(?:er|ir|re)\b")
_EN_CLITIC = re.compile(r"\b(?:j'en|(?:on|je|tu|il|elle|ils|elles|qui|noyau|kernel|code|programme)\s+(?:n'|ne\s+)?en\s+"
                        r"(?:utilis\w*|ai|a|as|ont|faut|fais|fait|font|met\w*|prend\w*|consomm\w*|lanc\w*|cré\w*|"
                        r"voi\w*|vient|viennent|sor\w*|reste\w*|abus\w*|ajout\w*|mett\w*)\b)")
# « l'ordonnancement y est statique ? », « on y accède comment ? »: « y » stands for a place or a
# thing named before, except in « il y a », « y a-t-il » and « s'y prendre » (no antecedent)
_Y_NOT_AFTER = ("a", "avait", "aura", "aurait", "prendre", "prend")
# « montre-moi l'exemple avec … », "show me the code": asks for a part of the previous answer
_SHOW_ME = re.compile(r"^(montre|montrez|donne|donnez|affiche|show|give)(-moi|-nous|\s+me|\s+us)?\s+"
                      r"(l'|le\s|la\s|les\s|the\s)")
# "got a full example? like residual + rmsnorm", « t'as un exemple complet ? »: asking whether
# there is one is asking for it (dev11: 1 of its 13 missed conversations)
_AN_EXAMPLE = re.compile(r"^(?:(?:got|have|any|t'as|t'aurais|tu as|tu aurais|vous avez|avez-vous|as-tu|y a|il y a)\s+)?"
                         r"(un|une|an?|some|des)\s+(?:(?:full|complete|concrete|real|small|petit|vrai|bon)\s+)?"
                         r"(exemples?|examples?)\b(?!\s+(?:de|d'|of|du|des)\s*(?!code\b)\w)")
_SHOWING = frozenset("montre montrez donne donnez affiche show give".split())
_CAN_YOU_SHOW = re.compile(r"^(tu peux|tu pourrais|peux-tu|pourrais-tu|vous pouvez|pouvez-vous|can you|could you)"
                           r"(\s+me|\s+nous|\s+m')?\s*(montrer|donner|afficher|show|give)(\s+me|\s+us)?\s+"
                           r"(l'|le\s|la\s|les\s|the\s|un\s|une\s|an?\s|some\s)?(code|exemple|example|snippet|programme)")
# "give me a worked example", « montre-moi un exemple de code »: an example of what was just
# said; "an example of a hash table" names its own subject (dev6: 2 of its 6 missed follow-ups)
_EXAMPLE_OF_IT = re.compile(r"^(montre|montrez|donne|donnez|show|give)(-moi|-nous|\s+me|\s+us)?\s+(un|une|an?|some)\s+"
                            r"(?:[\w-]+\s+){0,2}(exemples?|examples?|snippets?|démos?|demos?)\b")
# « en quoi c'est différent de CUTLASS ? », « quelle différence avec la version naïve ? »: a
# comparison that names one side only; « la différence entre X et Y » names both
# « c'est mieux que MXFP4 ? » (the thing compared is the previous answer's)
_ONE_SIDED = re.compile(r"\b(différente?s? de|différence avec|par rapport à|comparée?s? à|mieux que|pire que|"
                        r"better than|worse than|"
                        r"different from|difference with|compared? to|compared with|versus|vs\.?)\s")
_BOTH_SIDES = frozenset("entre between".split())
# "what is the speedup?", "what does the code look like?": a part of an answer, nothing else named
_ANSWER_PARTS = frozenset("code exemple example formule formula résultat résultats result results speedup "
                          "gain accélération chiffre chiffres preuve proof".split())
_WHICH_ONE = re.compile(r"\b(which|this|that|the previous|the first|the second|the other) ones?\b|"
                        r"\b(lequel|laquelle|lesquels|lesquelles|les deux|both)\b")
# « donne-moi le code d'une réduction »: an indefinite complement brings a new subject
_NEW_COMPLEMENT = re.compile(r"\b(d'une?|of an?|for an?|pour une?)\b")
_POSSESSIVES = frozenset("son sa ses leur leurs its their".split())   # « quelles sont ses limites ? »
_ELLIPTICAL_STARTS = frozenset("avec sans en sur sous pour dans à au aux par ou "
                               "with without on in for under".split())
_QUESTION_WORDS = frozenset("qu quel quelle quels quelles comment pourquoi combien quand où "
                            "que qui quoi koi ckoi kesako kézako est-ce what why how which when where who "
                            # "whats NCCL": the apostrophe left out (dev: 2 new questions read as follow-ups)
                            "whats wats hows whys".split())
# a request that names its subject is a question of its own (« explique-moi la quantification »),
# one that only asks for more (« explique davantage », "explain in more detail") is not
_REQUESTS = frozenset("explique expliquez explain décris décrivez describe définis define".split())
_ELABORATION = frozenset(terms("davantage détail détails mieux again further précisément precisely encore"))
# « quelles tolérances pour du bf16 alors ? », "why is decode the worst case for that?": the
# last word points back; on the dev conversations no standalone question ends with one
_TRAILING_BACK = frozenset("alors ça cela that this it them those then "
                           # "is it worth writing one?": a closing "one" stands for the thing named before
                           "one ones "
                           # "does triton run on amd too?": a closing "too" adds to what was said
                           # (on the 300 labelled dev conversations, 1 follow-up, no new question)
                           "too aussi "
                           # "why would I need to flush the L2 tho": a closing "tho" answers back
                           # (dev13: 2 of its 8 missed conversations)
                           "tho though".split())
# « je devrais commencer direct avec ? »: a closing preposition has lost its object, the thing
# just answered, in a short question (dev: 1 of its 1,280 labelled second messages; the 4 dev
# questions of 5,229 that end on one and name more, « … qu'a gagné orca avec », stand alone)
_LOST_OBJECT = frozenset("avec dessus dessous with".split())
# « je peux commencer qd même ? », "can I start anyway?": going on despite what was just said;
# « pk le 2e est limité par la mémoire ? », "why is the latter slower?": one of the things just
# answered, by its rank
_DESPITE = re.compile(r"\b(?:quand|qd) m[eê]me\s*\W*$|\banyway\s*\W*$")
_BY_RANK = re.compile(r"\b(?:le|la|les) (?:1er|1re|1ère|2e|2ème|2nd|2nde|3e|premier|première|deuxième|second|seconde|"
                      r"dernier|dernière|troisième)\b(?!\s+(?:\w+\s+){0,1}(?:de|du|des|d')\b)|"
                      r"\bthe (?:latter|former|second|first|last|third)\b(?!\s+(?:\w+\s+){0,1}of\b)")
# « autre question : … », « sinon, la mémoire unifiée ça sert à quoi ? », "unrelated, but …": the
# user says the subject changes; the marker is dropped from what is searched (on dev3, kept as
# typed, the marker pulled one of its 70 answers to the wrong chapter; « sinon » counts only
# before a determiner, « sinon, comment faire ? » still follows on).
_NEW_SUBJECT = re.compile(r"^\W*(?:(?:ok|okay|d'accord|dac|merci|thanks|thx|cool|super|top)\W+)*"
                          r"(autre question|nouvelle question|question différente|autre truc|autre chose|"
                          r"another thing|other thing|something else|(?:sinon,?\s*)?rien [aà] voir|"
                          r"changement de sujet|changeons de sujet|sans rapport|"
                          r"another question|new question|different question|unrelated|"
                          r"on another note|by the way|btw|changing (?:the )?(?:subject|topic)|"
                          r"sinon(?=\s*,?\s+(?:le|la|les|l'|un|une|des|du)\b)|"
                          # « et sinon event tensor c quoi »: a bare name after « et sinon »
                          r"et sinon(?=\s*,?\s+(?!(?:comment|pourquoi|quoi|quand|combien|on|je|ça|ca|c'|est|y|il|elle)\b)\w))"
                          r"\s*[:,;.!?\-–—]*\s*(?:(?:mais|but)\b\s*)?", re.IGNORECASE)
# « un exemple concret stp »: politeness asks for nothing; counted as a content term it made the
# request look like one with a subject of its own (2 of the 300 labelled dev follow-ups say one)
# « pourquoi c'est plus rapide ? », « c lent ? »: « c'est », with no subject of its own, is the
# thing just answered (dev7: « pourquoi c plus rapide ? » after pinned memory was read as new)
_CE_BACK = re.compile(r"(?:^|\s)(?:c'est|c|cest|ça|ca)\s+(?:pas\s+|vraiment\s+|encore\s+)?"
                      # « c hyper lent, comment j'accélère ? » (dev15: 1 of its 48 follow-ups read as new)
                      r"(?:hyper\s+|super\s+|très\s+|tres\s+|vachement\s+|grave\s+)?(?:plus|moins|mieux|pire|"
                      r"aussi|si|trop|lente?s?|rapides?|importante?s?|utiles?|nécessaires?|necessaires?|grave|"
                      r"normale?s?|possibles?|dangereu\w+|chers?|longs?|efficaces?|obligatoires?|vrai)\b")
# "would float4 loads help?", « est-ce que ça aiderait ? », « des tuiles plus grandes, ça
# changerait quoi ? »: a remedy tried on what was just answered (dev12: 1 of its 4 misses)
_WOULD_HELP = re.compile(r"^(?:would|will|could|might|does|do|can|is|est-ce que|est ce que)\b.{0,40}\bhelp\b|"
                         r"\b(?:aiderai\w*|aiderait|changerai\w*|ça aide|ca aide)\b")
# « pourquoi autant ?? », « comment je fais mieux ? », "why so much?": a comparison with no thing
# of its own is one with what was just answered (dev10: 2 of its 7 missed conversations)
_WHY_SO_MUCH = re.compile(r"^(?:pourquoi|pk|why|how come|comment ça|comment ca)\s+(?:autant|si peu|tant|so much|so many|"
                          r"so few|so little|that much)\b")
# « thunderkittens c bien ? », "is cutlass any good?": an opinion asked of a thing the question
# names, which the question before did not name, is a new subject (dev15: 1 of its 22 new
# subjects read as a follow-up)
_OPINION = re.compile(r"^(?:et\s+)?(?P<thing>[^,;:?]+?)\s+(?:c'est|c|cest|ça|ca|it's|is it|is)\s+(?:vraiment\s+|really\s+)?"
                      r"(?:bien|bon|good|any good|worth it|utile|useful|recommandé|recommended)\s*\W*$|"
                      r"^(?:is|are)\s+(?P<thing2>[^,;:?]+?)\s+(?:any good|good|worth it|useful)\s*\W*$")
# "why parity and not just a counter?", « pourquoi 128 et pas 256 ? »: a choice of what was just
# answered, weighed against another (dev15: 1 of its 48 follow-ups read as a new question)
_AND_NOT = re.compile(r"^(?:why|pourquoi|pk|pq|how come)\b.{0,40}\b(?:and not|but not|et pas|et non|plutôt que|plutot que|"
                      r"rather than|instead of|au lieu de)\b")
# words by which a thing points back at what was said (« cette technique », « lequel », "this approach")
_POINTS_AT = _ANAPHORA | _POSSESSIVES | frozenset("ce cet cette ces lequel laquelle lesquels lesquelles which one "
                                                  "this that these those premier première second seconde".split())
_COMPARATIVES = frozenset("autant mieux pire davantage better worse faster slower".split())
# « … qui font ce genre de synchro ? », « une version python de ce truc », "this kind of loop":
# a demonstrative determiner points back even in a long message, where the pronoun rules wait
# for a short one; and « ça » as the object of a verb, last or before a complement (« … les
# endroits qui font ça dans mon code ? »). Read in the first clause only, not in one that opens
# on « mon … » or names its subject (« ThunderKittens c'est quoi ce nom », « mon megakernel hang,
# comment je debug ça ? »: the thing is named just before); not « ce guide », « est-ce », « tout ça ».
# With the next-step rule below: on the 1,383 labelled dev conversations 4 follow-ups read as new
# are read right and no reading gets worse; 2 of the 5,499 standalone dev questions would be read
# as follow-ups if asked second (19 without the clause and « mon » limits).
_DEMONSTRATIVE = re.compile(r"(?<!-)\b(?:ce|cet|cette|ces)\s+(?!que\b|qu'|qui\b|quoi\b|dont\b|soit\b|sont\b|serait\b|"
                            r"n'|ne\b|guide\b|faisant\b)[a-zàâçéèêëîïôûùüœ]\w*|"
                            r"\b(?:this|that|these|those)\s+(?:kind|sort|type)s?\s+of\b")
_NAMES_IT = re.compile(r"\b(?:c'est|c|cest)\s+quoi\b|qu'est-ce qu|qu'est ce qu")
_CLAUSE_END = re.compile(r"[,;:?.!…]")
_OBJECT_CA = re.compile(r"\b(?!tout\b)\w+\s+(?:ça|ca|cela)\s*(?:$|[?!.,;]|\b(?:dans|sur|avec|en|pour|à|au|aux|sans|"
                        r"quand|si|ou|automatiquement|partout)\b)")
_CA_SUBJECT = re.compile(r"^\W*\w+(?:\s+\w+)?\s+(?:ça|ca)\b")   # « nccl ça sert à quoi »: the subject
# « … qui font le même coup ? »: the same thing as the one just answered; « son autotuning prend
# combien de temps ? »: a message that opens on a possessive (« son », "its") owns nothing of its
# own; "what pattern in it …", "a Python way to use this instead …": an English object pronoun.
# In the first clause, cut at « et » / "and" too ("… and why does my code compiled for it …" names
# it before). Added from the round-20 test's misses (dev21: 4 follow-ups read as new); no other of the
# 1,453 dev conversations changes its reading, and 1 of the 5,769 standalone dev questions would be
# read as a follow-up if asked second.
_SAME_THING = re.compile(r"\b(?:le|la|les) m[eê]mes? (?:coup|truc|trucs|genre|problème|probleme|souci)\b")
_OPENS_POSSESSIVE = re.compile(r"^\W*(?:(?:et|mais|ok|and|but)\s+)?(?:son|sa|ses|leur|leurs|its|their)\s+\w")
_EN_OBJECT = re.compile(r"\b(?:in|of|with|for|on|inside|into|from|use|using|about)\s+(?:it|them|(?:this|that)"
                        r"(?=\s*(?:$|[?!.,;]|\b(?:instead|in|on|for|with|to|from|and|or|again|too|here|there)\b)))\b")
_CLAUSE_OR_AND = re.compile(_CLAUSE_END.pattern + r"|\s(?:and|et)\s")
# "what's the next step to go faster?", « et après ? », « la suite ? »: what comes after the answer
_NEXT_STEP = re.compile(r"\b(?:next steps?|what's next|what next|la prochaine étape|l'étape suivante|la suite|"
                        r"et après|et apres)\b")
# "how many blocks can I put in one at most?", « … dedans au maximum ? »: a closing bound does
# not hide the word that points back before it
_CLOSING_BOUND = re.compile(r"\s+(?:at most|at least|max|maximum|minimum|exactly|in total|au maximum|au max|"
                            r"au moins|au total|exactement)\s*\W*$")
# « quel outil me montrerait le problème ? », "which tool shows the bug?": the problem just told,
# in a short message (a long one tells its own: « mon noyau … c'est quoi le souci »). Added from
# the round-21 test's misses (dev22); with the closing bound, no other of the 1,523 dev
# conversations changes its reading and no standalone dev question is read otherwise.
_THE_PROBLEM = re.compile(r"\b(?:le|ce|du|the) (?:probl[eè]me|souci|bug|problem|issue)\b"
                          r"(?!\s+(?:de|d'|du|des|avec|entre|que|qui|of|with|that|where|in|when)\b)")
_POLITE = frozenset("stp svp please pls plz merci thanks tho lol mdr".split())
_SHORT = 3          # content terms; « et avec des tuiles de 64 ? » has 2
_ANAPHORA_MAX_TERMS = 4   # the longest follow-up of the eval sets has 3 content terms
_TOPIC_WORDS = 30   # a chain of follow-ups keeps at most this many words of context


# Texting spellings of question words (« c koi la coalescence », « pk mon noyau plante »):
# the guide's vocabulary does not hold them, so the refusal read « koi » as an unknown word
# (relevance 0.007 against 0.997 for « c quoi la coalescence » on the full index).
_INFORMAL = {"koi": "quoi", "ckoi": "c'est quoi", "kesako": "qu'est-ce que", "kézako": "qu'est-ce que",
             "pk": "pourquoi", "pq": "pourquoi", "pourkoi": "pourquoi", "cmt": "comment", "bcp": "beaucoup"}
_INFORMAL_WORD = re.compile(r"(?<![\w'-])(" + "|".join(_INFORMAL) + r")(?![\w'-])", re.IGNORECASE)


def standard_spelling(question: str) -> str:
    """``question`` with the texting spellings of question words written out (« koi » → « quoi »)."""
    return _INFORMAL_WORD.sub(lambda m: _INFORMAL[m.group(1).lower()], question)


@dataclass(frozen=True)
class Resolved:
    query: str
    followup: bool = False
    how: str = "none"      # "none" | "rule" | "evidence" | "llm"
    own: str = ""          # a rule or evidence follow-up: the question as typed (its own subject, if any)
    previous_chapters: tuple[str, ...] = ()   # the chapters the previous answer cited (any second message)
    # a rule follow-up: "en" when the topic or the follow-up is English (« et pour un MI300X ? »
    # after an English question), so that the joined query gets the English analysis
    language: str = ""


def _demonstrative_points_back(lowered: str, ws: list[str], n_terms: int) -> bool:
    """« comment ça marche sur AMD ? » points back; « un accès coalescé, et pourquoi est-ce
    important ? » points inside the question, to what it named before « et »."""
    ce = _CE_IS_SUBJECT.search(lowered)
    at = next((i for i, w in enumerate(ws) if w in _ANAPHORA), None)
    if ce is not None:
        ce_at = len(words(lowered[:ce.start()]))
        at = ce_at if at is None else min(at, ce_at)
    if at is None:
        return False
    before = ws[:at]
    if terms(" ".join(before)) and ("et" in before or "and" in before):
        return False
    # « nccl ça sert à quoi », « pk fusionner des kernels ça accélère »: « ça » takes up the thing
    # named just before it (dev9: 2 new questions of 22 read as follow-ups); not after a question
    # word, a preposition, a request or a participle: « combien de mémoire ça prend ? », « appliquée
    # au H100, ça donne combien ? », « montre le code avec ça » point back (4 dev follow-ups)
    # "speculative decoding how does it work": the same for "it", "this", "that" after a subject and
    # before the question word (dev: 1 new question of 22 read as a follow-up)
    asked_at = next((i for i, w in enumerate(ws[:at]) if w in _QUESTION_WORDS), 0)
    if ws[at] in ("it", "this", "that") and asked_at and terms(" ".join(ws[:asked_at])) and \
            ws[0] not in _ELLIPTICAL_STARTS and ws[0] not in _REQUESTS | _SHOWING:
        return False
    if ws[at] in ("ça", "ca", "cela") and terms(" ".join(before)) and before[0] not in _QUESTION_WORDS and \
            before[0] not in _ELLIPTICAL_STARTS and before[0] not in _REQUESTS | _SHOWING and \
            not before[0].endswith(("é", "ée", "és", "ées")):
        return False
    return n_terms <= _ANAPHORA_MAX_TERMS or not terms(" ".join(before))


def _first_clause_points_back(lowered: str) -> bool:
    """A demonstrative, an object « ça », « le même coup », an opening possessive or an English
    object pronoun in the message's first clause (see ``_DEMONSTRATIVE`` and ``_SAME_THING``)."""
    clause = _CLAUSE_END.split(lowered, maxsplit=1)[0]
    if not _NAMES_IT.search(clause) and not clause.startswith(("mon ", "ma ", "mes ", "my ")) and (
            _DEMONSTRATIVE.search(clause) or (_OBJECT_CA.search(clause) and not _CA_SUBJECT.match(clause))):
        return True
    # the later rules cut the clause at « et » / "and" too: they were measured so
    clause = _CLAUSE_OR_AND.split(lowered, maxsplit=1)[0]
    return bool(_SAME_THING.search(clause) or _OPENS_POSSESSIVE.match(clause) or _EN_OBJECT.search(clause))


def _pronoun_points_back(lowered: str, m: re.Match) -> bool:
    before = words(lowered[:m.start()])
    after = lowered[m.end():]
    if words(after)[:1] and words(after)[0] in _IMPERSONAL_AFTER:
        return False
    if not m.group(1):
        return True                       # « est-ce qu'elle est rapide ? »
    verb, before = (before[-1] if before else ""), before[:-1]
    if verb in _IMPERSONAL_VERBS or (m.group(2) == "il" and _INFINITIVE_AFTER.search(after)):
        return False
    if not terms(" ".join(before)):
        return True                       # « pourquoi est-elle lente ? »: no subject of its own
    # « quels résultats rapporte-t-il ? »: a short « quel … » phrase is the object
    return before[0] in _OBJECT_QUESTION and len(before) <= 2


def _y_points_back(ws: list[str]) -> bool:
    return any(w == "y" and (i + 1 < len(ws) and ws[i + 1] not in _Y_NOT_AFTER) for i, w in enumerate(ws))


def _new_subject(question: str) -> str | None:
    """The question without its opening subject-change marker, or None when it has none."""
    m = _NEW_SUBJECT.match(question.replace("’", "'"))
    if m is None or not question[m.end():].strip():
        return None
    return question[m.end():].strip()


def _is_followup(question: str) -> bool:
    lowered = question.lower().replace("’", "'").lstrip("«\"' ")
    if lowered.startswith(_CONNECTORS):
        return True
    # "what's local memory on a GPU? is it fast?": the second question's « it » is the first
    # one's subject; a message is read by its first question when that one names a subject
    # (dev18: 1 of its 22 new questions read as a follow-up)
    first, mark, rest = lowered.partition("?")
    if mark and words(rest) and terms(first) and not _is_followup(first):
        return False
    ws = words(lowered)
    if not ws:
        return False
    closing = words(_CLOSING_BOUND.sub("", lowered))
    if len(closing) > 2 and closing[-1] in _TRAILING_BACK or _DESPITE.search(lowered):
        return True
    n_terms = len(terms(" ".join(w for w in ws if w not in _POLITE and w not in _COMPARATIVES)))
    if n_terms <= _SHORT and _THE_PROBLEM.search(lowered):
        return True
    if len(ws) > 2 and ws[-1] in _LOST_OBJECT and n_terms <= _SHORT:
        return True
    if n_terms <= _SHORT and _AND_NOT.match(lowered):
        return True
    if n_terms <= _ANAPHORA_MAX_TERMS and _BY_RANK.search(lowered):
        return True
    if _first_clause_points_back(lowered) or _NEXT_STEP.search(lowered):
        return True
    if _WHY_SO_MUCH.match(lowered):
        return True                       # « pourquoi autant ?? d'où viennent les 16 » (dev13)
    if n_terms <= 1 and _COMPARATIVES & set(ws) and not _NEW_COMPLEMENT.search(lowered):
        return True                       # « pourquoi autant ?? », « comment je fais mieux ? »
    if _demonstrative_points_back(lowered, ws, n_terms):
        return True
    m = _PRONOUN.search(lowered)          # the first pronoun decides: later ones repeat it
    if m and _pronoun_points_back(lowered, m):
        return True
    # « donne-moi un exemple », « un exemple avec des vrais chiffres stp », « tu peux montrer le
    # code ? »: an example or the code of what was just said, with no subject of its own
    if any(p.match(lowered) for p in (_EXAMPLE_OF_IT, _AN_EXAMPLE, _CAN_YOU_SHOW)) and \
            not _NEW_COMPLEMENT.search(lowered):
        return True
    show_me = _SHOW_ME.match(lowered) and not _NEW_COMPLEMENT.search(lowered)
    if n_terms <= _ANAPHORA_MAX_TERMS and (_CLITIC_OBJECT.search(lowered) or _MODAL_CLITIC.search(lowered)
                                           or _EN_CLITIC.search(lowered) or show_me
                                           or _y_points_back(ws) or _WHICH_ONE.search(lowered)):
        return True
    one_sided = _ONE_SIDED.search(lowered)
    if (n_terms <= _SHORT and one_sided and not _BOTH_SIDES & set(ws)
            and not terms(lowered[:one_sided.start()].replace("différence", "").replace("difference", ""))):
        return True
    ce_back = _CE_BACK.search(lowered)
    if ce_back and n_terms <= 2:
        return True
    # With nothing named before it, the degree word is no subject either: « pk c trop strict
    # pour une matmul ? » (dev12); « SpMV sur gpu pk c'est si lent » names its own
    if ce_back and n_terms <= 3 and not terms(lowered[:ce_back.start()]):
        return True
    if n_terms - 1 <= _SHORT and _WOULD_HELP.search(lowered):
        return True                       # "would float4 loads help?": tried on what was just said
    if n_terms <= 2 and _ANSWER_PARTS & set(ws):
        return True
    asks = any(w in _QUESTION_WORDS for w in ws) or (
        any(w in _REQUESTS for w in ws) and any(t not in _ELABORATION for t in terms(question)))
    if n_terms <= _SHORT and ws[0] in _ELLIPTICAL_STARTS and not asks:
        return True                       # « avec des tuiles de 64 ? »
    if n_terms == 0:
        return True                       # « pourquoi ? »
    if n_terms <= 2 and (any(w in _POSSESSIVES for w in ws) or _CLITIC_INFINITIVE.search(lowered)):
        return True                       # « quelle est sa latence ? », « comment l'éviter ? »
    if n_terms <= 1 and lowered.startswith(("qu'est-ce qui", "qu'est ce qui", "ce qui", "what else")):
        return True     # « qu'est-ce qui ne se porte pas ? »: a verb and no subject of its own
    return n_terms <= 2 and not asks


def _opinion_of_another(question: str, before: str) -> bool:
    """An opinion asked of a thing the question before did not name (see ``_OPINION``)."""
    m = _OPINION.match(question.lower().replace("’", "'").strip())
    if m is None:
        return False
    said = m.group("thing") or m.group("thing2") or ""
    if set(words(said)) & _POINTS_AT:
        return False                      # « cette technique c bien ? », "which one is good?"
    thing = set(terms(said))
    return bool(thing) and not thing & set(terms(before))


def _previous(conversation: Conversation | None) -> Turn | None:
    if not conversation:
        return None
    for turn in reversed(conversation.turns):
        if turn.kind in ("answer", "refusal"):
            return turn
    return None


def resolve(question: str, conversation: Conversation | None, rewriter: Rewriter | None = None) -> Resolved:
    previous = _previous(conversation)
    searched = standard_spelling(question)
    fresh = _new_subject(searched)
    if fresh is not None:
        return Resolved(fresh)
    if previous is None:
        return Resolved(searched)
    if rewriter is not None:
        try:
            rewritten = rewriter(question, conversation.turns)
        except Exception:  # an LLM failure must not lose the question: the rule applies
            rewritten = None
        if rewritten and rewritten.strip() and len(rewritten) <= 1000:
            rewritten = rewritten.strip()
            return Resolved(rewritten, followup=rewritten != question, how="llm")
    if not _is_followup(searched) or _opinion_of_another(searched, previous.resolved_question):
        return Resolved(searched, previous_chapters=tuple(previous.chapter_ids))
    return _joined(searched, previous, "rule")


def joined(question: str, conversation: Conversation | None) -> Resolved | None:
    """``question`` read as carrying on the previous question, whatever the rule says; None
    when there is no previous question or the question says the subject changes.

    ``assistant.answer`` asks for this reading when a second message the rule read as new
    gets no confident answer on its own (``how`` is "evidence")."""
    previous = _previous(conversation)
    searched = standard_spelling(question)
    if previous is None or _new_subject(searched) is not None:
        return None
    return _joined(searched, previous, "evidence")


def _joined(searched: str, previous: Turn, how: str) -> Resolved:
    topic = " ".join(previous.resolved_question.split()[-_TOPIC_WORDS:])
    mixed = "en" if "en" in (language(topic), language(searched)) else "fr"
    # « et en bf16 ? » after a question on FP16: the same question, of the other format
    query = swapped(previous.resolved_question, searched) or f"{topic} {searched}"
    return Resolved(query, followup=True, how=how, own=searched,
                    previous_chapters=tuple(previous.chapter_ids), language=mixed)
