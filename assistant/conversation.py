"""Resolve a follow-up question against the conversation so far.

``resolve(question, conversation, rewriter=None)`` returns a ``Resolved`` record whose
``query`` is what retrieval should search. With a ``rewriter`` (an LLM generator's
``rewrite``), the model restates the question on its own; if it fails or declines, the
deterministic rule applies: a question that opens with a connector (« et avec des tuiles
de 64 ? »), points back with a pronoun (« pourquoi est-elle plus rapide ? ») or is an
elliptical fragment (« en FP8 ? ») gets the previous question's topic prepended.
Limits: the rule looks one turn back and cannot tell a new short question that happens
to start with « et » from a follow-up.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from assistant._text import terms, words
from assistant.answer_records import Conversation, Turn

Rewriter = Callable[[str, tuple[Turn, ...]], Optional[str]]

_CONNECTORS = ("et ", "et,", "mais ", "alors ", "puis ", "pareil", "idem", "même chose",
               "meme chose", "plutôt ", "plutot ", "ok ", "d'accord", "and ", "what about",
               "how about", "what if", "same ", "also ", "aussi ")
_ANAPHORA = frozenset("ça ca cela celui-ci celle-ci ceux-ci celles-ci celui celle ceux "
                      "celles dernier dernière cette cet ces là-dessus y "
                      "it this that these those they them".split())
_SUBJECT_PRONOUNS = frozenset("il elle ils elles".split())
_IMPERSONAL_AFTER = frozenset("faut y s".split())   # « il faut », « il y a », « s'il »
_ELLIPTICAL_STARTS = frozenset("avec sans en sur sous pour dans à au aux par ou "
                               "with without on in for under".split())
_QUESTION_WORDS = frozenset("qu quel quelle quels quelles comment pourquoi combien quand où "
                            "que qui quoi est-ce what why how which when where who".split())
_SHORT = 3          # content terms; « et avec des tuiles de 64 ? » has 2
_TOPIC_WORDS = 30   # a chain of follow-ups keeps at most this many words of context


@dataclass(frozen=True)
class Resolved:
    query: str
    followup: bool = False
    how: str = "none"      # "none" | "rule" | "llm"


def _is_followup(question: str) -> bool:
    lowered = question.lower().replace("’", "'").lstrip("«\"' ")
    if lowered.startswith(_CONNECTORS):
        return True
    ws = words(lowered)
    if not ws:
        return False
    for i, w in enumerate(ws):
        if w in _ANAPHORA and not (w == "y" and i > 0 and ws[i - 1] == "il"):
            return True
        if w in _SUBJECT_PRONOUNS and (i + 1 >= len(ws) or ws[i + 1] not in _IMPERSONAL_AFTER):
            return True
    n_terms = len(terms(question))
    if n_terms <= _SHORT and ws[0] in _ELLIPTICAL_STARTS:
        return True
    return n_terms <= 2 and not any(w in _QUESTION_WORDS for w in ws)


def _previous(conversation: Conversation | None) -> Turn | None:
    if not conversation:
        return None
    for turn in reversed(conversation.turns):
        if turn.kind in ("answer", "refusal"):
            return turn
    return None


def resolve(question: str, conversation: Conversation | None, rewriter: Rewriter | None = None) -> Resolved:
    previous = _previous(conversation)
    if previous is None:
        return Resolved(question)
    if rewriter is not None:
        try:
            rewritten = rewriter(question, conversation.turns)
        except Exception:  # an LLM failure must not lose the question: the rule applies
            rewritten = None
        if rewritten and rewritten.strip() and len(rewritten) <= 1000:
            rewritten = rewritten.strip()
            return Resolved(rewritten, followup=rewritten != question, how="llm")
    if not _is_followup(question):
        return Resolved(question)
    topic = " ".join(previous.resolved_question.split()[-_TOPIC_WORDS:])
    return Resolved(f"{topic} {question}", followup=True, how="rule")
