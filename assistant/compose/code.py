"""The code block an answer shows, if any: ``answer_code(hits, quoted, section_scores, asked,
question, lead_rank)``.

- a request for code (« montre », « un exemple », « … ? code stp »): the block, among every
  retrieved section, that holds most of the question's terms, in the language the question
  names, never shell commands unasked;
- « comment » with a name of code (`cuTensorMapEncodeTiled`): a block that writes the name,
  among the quoted sections;
- « comment faire » (« comment capturer … », "how do I …") without a request: the short block
  of the opening's own section.
A block is quoted verbatim, fences included, and cited with its section by the composer.
"""
from __future__ import annotations

import re
from typing import Sequence

from ingest.analyzer import terms
from ingest.anchors import fold
from assistant.compose.blocks import section_blocks
from assistant.compose.intent import Intent

# which code block answers « le code complet ? »: on the dev hand-read, 3 of 40 requests for
# code got the chapter's shell commands (``export PATH``, ``TORCH_LOGS``) instead of the kernel
_SHELL = frozenset({"bash", "sh", "shell", "console", "text", ""})
_COMMAND = re.compile(r"\b(?:commande|command|terminal|shell|install\w*|pip|export|variable d'environnement|env var)")
_CODE_LANGUAGES = {"cuda": (r"\bcuda\b", r"\bc\+\+", r"\bnvcc\b"), "python": (r"\bpython\b", r"\btriton\b", r"\bpytorch\b", r"\btorch\b")}
_CODE_LANGUAGES_FENCES = {"cuda": {"cuda", "cpp", "c++", "c", "ptx"}, "python": {"python", "py"}}
_LANGUAGE_BONUS = 0.5
_SECTION_SHARE = 0.25  # the section's best sentence breaks ties between blocks as close to the question
_OWN_CODE_LINES = 30   # a longer block is a whole program: shown when code is asked for, not unasked


def _language(block: str) -> str:
    """The language its fence names (```` ```cuda ```` → "cuda"; a bare fence → "")."""
    return block.split("\n", 1)[0].strip("`~ ").lower()


def _code_block(hits: Sequence, section_scores: dict[int, float], named: frozenset = frozenset(),
                question: str = "", question_terms: frozenset = frozenset()) -> tuple[int, str] | None:
    """The code block that answers a request for code: among the blocks of the retrieved
    sections, the one whose code holds most of the question's terms, in the language the
    question names (« en CUDA », "in Triton"), its section's best sentence breaking ties; a
    shell block (``bash``, ``text``) only when a command is asked. With ``named``, only blocks
    that write one of these names. ``section_scores``: the best sentence score of each hit's
    rank (a section none of whose sentences scored still counts when its code holds the
    question's terms). Returns (rank, block verbatim) or None."""
    best = section_scores
    folded = fold(question)
    spoken_in = {fence for lang, words in _CODE_LANGUAGES.items() if any(re.search(w, folded) for w in words)
                 for fence in _CODE_LANGUAGES_FENCES[lang]}
    commands = bool(_COMMAND.search(folded))
    found: list[tuple[float, int, int, str]] = []
    # every retrieved section, even one whose sentences were all met in an earlier chunk of it
    # (a section cut in two chunks keeps its code block in the second)
    for r in range(len(hits)):
        for i, block in enumerate(section_blocks(hits[r].text).codes):
            held = set(terms(block))
            if named and not any(t in held for t in named):
                continue
            lang = _language(block)
            if lang in _SHELL and not commands:
                continue
            share = len(question_terms & held) / len(question_terms) if question_terms else 0.0
            spoken = _LANGUAGE_BONUS if lang in spoken_in else 0.0
            if share > 0 or best.get(r, 0.0) > 0:
                found.append((share + spoken + _SECTION_SHARE * best.get(r, 0.0), -r, -i, block))
    if not found:
        return None
    _, r, _, block = max(found)
    return -r, block


def _own_code(hits: Sequence, rank: int) -> tuple[int, str] | None:
    """The lead's own section's code block, when short: « comment capturer un graphe … ? »
    is answered by the lines that do it, asked for or not."""
    codes = [b for b in section_blocks(hits[rank].text).codes if _language(b) not in _SHELL]
    if codes and len(codes[0].splitlines()) <= _OWN_CODE_LINES:
        return rank, codes[0]
    return None


def answer_code(hits: Sequence, quoted: int, section_scores: dict[int, float], asked: Intent, question: str,
                lead_rank: int) -> tuple[int, str] | None:
    """(rank of the hit, block) to show after the opening, or None (see the module docstring).
    ``quoted``: how many of ``hits`` the answer quotes; ``section_scores``: each quoted rank's
    best sentence score."""
    question_terms = frozenset(terms(question)) - asked.frame
    found = None
    if asked.code:
        found = _code_block(hits, section_scores, question=question, question_terms=question_terms)
    elif asked.kind == "how" and asked.named:
        found = _code_block(hits[:quoted], section_scores, asked.named, question, question_terms)
    if found is not None:
        return found
    if asked.kind == "how" and asked.doing:
        return _own_code(hits, lead_rank)
    return None
