"""Give an English question the French words of the guide, for the word-matching parts.

``expand(question, language)`` returns the question itself for French, and for English
the question followed by the French translation of the words listed in
``assistant/data/en_fr.yaml``. The corpus stays French; the dense retriever is
multilingual, but BM25, the refusal rule (share of known terms) and the sentence scorer
match words.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from assistant._text import words

_GLOSSARY_FILE = Path(__file__).parent / "data" / "en_fr.yaml"


@lru_cache(maxsize=1)
def _glossary() -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in yaml.safe_load(_GLOSSARY_FILE.read_text(encoding="utf-8")).items()}


def expand(question: str, language: str) -> str:
    if language != "en":
        return question
    glossary = _glossary()
    extra: dict[str, None] = {}
    for w in words(question):
        if w in glossary:
            extra.setdefault(glossary[w], None)
    return f"{question} ({' '.join(extra)})" if extra else question
