"""Recognise questions about what to read, which go to the reading-path dialogue.

``route(question)`` returns a ``Route``: ``kind`` is "reading_path" (the CLI or the UI
opens the dialogue of ``assistant.paths``; it is not answered from passages) or "answer".
The patterns are data (``assistant/data/routes.yaml``) so that adding a phrasing needs no
code change.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from ingest.anchors import fold

_ROUTES_FILE = Path(__file__).parents[1] / "data" / "routes.yaml"

READING_PATH_REPLY = ("Pour choisir quoi lire, le guide propose des parcours de lecture selon ce "
                      "que vous savez déjà et ce que vous voulez en faire. Répondez à deux "
                      "questions et Tuile vous recommande un parcours : « tuile parcours » "
                      "(ou l'onglet Parcours de l'interface). La page des parcours : "
                      "corpus/parcours.md#comment-choisir")


@dataclass(frozen=True)
class Route:
    kind: str          # "reading_path" | "answer"
    pattern: str = ""  # the pattern that matched, for tests and logs


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern, ...]:
    data = yaml.safe_load(_ROUTES_FILE.read_text(encoding="utf-8"))
    return tuple(re.compile(p, re.IGNORECASE) for p in data["reading_path"])


def route(question: str) -> Route:
    folded = fold(question.lower()).replace("’", "'")
    for pattern in _patterns():
        if pattern.search(folded):
            return Route("reading_path", pattern.pattern)
    return Route("answer")
