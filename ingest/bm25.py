"""The BM25 side of the index: ``bm25s`` (sparse matrices) over ``ingest.analyzer`` terms.

``BM25Index.from_texts(ids, texts)`` analyses and indexes passages; ``search(query, k,
allowed)`` ranks them; ``save``/``load`` keep it beside the Chroma store of a generation,
with the analyser version it was built with (``load`` returns None for another version,
and the retriever then rebuilds it from the passages, ~0.4 s for 844 passages).

bm25s replaced a hand-written Okapi BM25 after a measurement on the dev retrieval set
(271 questions, 69 chapters, 844 passages; ``evals/results/bm25-backends-2026-12-01.md``):
same ranking quality (Lucene's BM25 is the same formula) and a faster query.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import bm25s
import numpy as np

from ingest.analyzer import index_terms

# Bumped whenever ingest.analyzer changes what a text becomes: an index built with another
# version is rebuilt from its passages at load time.
ANALYZER_VERSION = "3"
K1, B = 1.2, 0.75   # Lucene's defaults; 1.5 / 0.75 (bm25s's) gave the same dev MRR within 0.005

logging.getLogger("bm25s").setLevel(logging.WARNING)


class BM25Index:
    """BM25 over a few thousand passages, queried with the analyser's terms."""

    def __init__(self, ids: list[str], docs: list[list[str]], k1: float = K1, b: float = B) -> None:
        self.ids = list(ids)
        self.k1, self.b = k1, b
        self._model = bm25s.BM25(k1=k1, b=b, method="lucene")
        # an empty passage would leave bm25s without a row for it: give it a token no query has
        self._model.index([d or ["\x00"] for d in docs], show_progress=False)
        self._vocab = self._model.vocab_dict

    @classmethod
    def from_texts(cls, ids: list[str], texts: list[str]) -> "BM25Index":
        return cls(ids, [index_terms(t) for t in texts])

    def scores(self, query_terms: list[str]) -> np.ndarray:
        """BM25 score of every passage for ``query_terms`` (each term counted once)."""
        wanted = [self._vocab[t] for t in dict.fromkeys(query_terms) if t in self._vocab]
        if not wanted:
            return np.zeros(len(self.ids), dtype=np.float32)
        return self._model.get_scores_from_ids(wanted)

    def search(self, query: str | list[str], k: int = 20,
               allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """Top ``k`` (id, score) pairs with a positive score; ``query`` is text or terms."""
        query_terms = index_terms(query) if isinstance(query, str) else list(query)
        scores = self.scores(query_terms)
        if allowed is not None:
            scores = np.where([i in allowed for i in self.ids], scores, 0.0)
        top = np.argsort(-scores, kind="stable")[:k]
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0]

    def save(self, path: Path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        self._model.save(str(tmp), show_progress=False)
        (tmp / "tuile.json").write_text(json.dumps({"ids": self.ids, "analyzer": ANALYZER_VERSION,
                                                    "k1": self.k1, "b": self.b}), encoding="utf-8")
        shutil.rmtree(path, ignore_errors=True)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> "BM25Index | None":
        """The saved index, or None when absent or built by another analyser version."""
        path = Path(path)
        try:
            meta = json.loads((path / "tuile.json").read_text(encoding="utf-8"))
        except (FileNotFoundError, NotADirectoryError, ValueError):
            return None
        if meta.get("analyzer") != ANALYZER_VERSION:
            return None
        self = cls.__new__(cls)
        self.ids, self.k1, self.b = meta["ids"], meta["k1"], meta["b"]
        self._model = bm25s.BM25.load(str(path), show_progress=False)
        self._vocab = self._model.vocab_dict
        return self
