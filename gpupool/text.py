"""French typography for the messages of this package: no-break spaces where they belong."""
from __future__ import annotations

import re

_RULES = ((re.compile(r" ([;?!])"), "\u202f\\1"), (re.compile(r" :(?=\s|$)"), "\u00a0:"),
          (re.compile(r"« "), "«\u00a0"), (re.compile(r" »"), "\u00a0»"))


def fr(text: str) -> str:
    """« a : b ; c ? » with U+00A0 before « : » and inside « », U+202F before ; ? !"""
    for pattern, repl in _RULES:
        text = pattern.sub(repl, text)
    return text
