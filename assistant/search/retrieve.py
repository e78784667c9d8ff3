"""Hybrid retrieval: dense (Chroma + the configured embedder) and BM25, fused by rank.

``Retriever(config).search(question, k)`` returns ranked ``Hit``s carrying citation data;
``question`` is text or an analysed ``assistant.search.query.Query`` (its English-to-French
expansion then feeds BM25, and its text the dense side). Weighted reciprocal-rank fusion
(score = Σ w / (RRF_K + rank)) needs no score calibration between the two retrievers,
whose scales differ (cosine vs BM25). Weights and constant were chosen on dev with
cross-validation (``python -m evals.retrieval --tune``; figures beside ``FUSION``). The retriever follows the index's
manifest: when a re-ingest switches generation, the next search reopens the new one, and a
search in flight finishes on the generation it started with.

LangChain's ``EnsembleRetriever`` does the same fusion, but over ``Document``s without the
scores of each retriever, which the answer stage uses to decide that the guide does not
cover a question; the fusion is ten lines here.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from assistant.records import Hit
from ingest.analyzer import index_terms
from ingest.bm25 import BM25Index
from ingest.config import Config, load_config
from ingest.embedders import get_embedder, query_vector
from ingest.errors import ConfigError, IndexMissingError
from ingest.index import bm25_text, generation_dir, load_store, open_collection, read_manifest
from ingest.records import Chunk

CANDIDATES = 30   # per retriever before fusion; recall@5 of the fused list stops improving past ~20
# Fusion tuned on dev (`python -m evals.retrieval --tune`: 603 questions, 69 chapters, chapter
# level): rank constant 5 with equal weights gives MRR 0.875, R@5 0.979 (5-fold CV MRR 0.869;
# the folds chose constant 5 and dense weight 0.75 or 1.0) against 0.863 / 0.970 with the
# textbook constant 60. Grouping passages by chapter (a chapter scored by the sum of its
# passages) reached MRR 0.894 but lowered the gold chapter cited by composed answers from
# 0.950 to 0.891 on dev (the composer's four passages then come from fewer chapters): not done.
# Retuned on the larger dev (1178 questions) with each writing round held out in turn (fitted
# on the others, scored on it): every round chose dense weight 0.75 (constant 5, or 10), and
# the pooled held-out MRR was 0.8780 against 0.8779 for these weights; R@5 0.9771 vs 0.9762
# (evals/results/retrieval-tune-2026-12-01-round3.md): no gain, so they stayed.
# Retuned on the 27 dev sets (7,118 questions), each one held out in turn: every round chose
# dense weight 0.75 with constant 5 again, and now the held-out MRR beats the equal weights on
# 25 of the 27: pooled 0.8786 against 0.8646, R@5 0.9784 against 0.9754
# (evals/results/retrieval-tune-2026-12-06-round25.md). Composed answers on 2,000 dev questions
# cite the gold chapter 1,855 times against 1,861 (the refusal model not yet refitted); refitted,
# the whole dev cites it for 0.930 of 6,849 questions (0.929 of 6,579 the round before).
RRF_K = 5
FUSION = (0.75, 1.0)


@dataclass(frozen=True)
class Runs:
    """One search: the fused hits, and each retriever's candidates, best first, as
    (chapter id, score, passage id)."""
    hits: list[Hit]
    dense: tuple[tuple[str, float, str], ...]
    sparse: tuple[tuple[str, float, str], ...]
    passages: int


@dataclass
class _Generation:
    name: str
    collection: object
    chunks: dict[str, Chunk]
    bm25: BM25Index


class Retriever:
    def __init__(self, config: Config | None = None) -> None:
        self.config = config or load_config()
        self._lock = threading.Lock()
        self._gen: _Generation | None = None
        self._embedder = None

    def _current(self) -> _Generation:
        manifest = read_manifest(self.config.index_dir)
        if manifest is None:
            raise IndexMissingError(f"aucun index dans {self.config.index_dir} ; lancez d'abord « tuile ingest »")
        with self._lock:
            if self._gen is None or self._gen.name != manifest["generation"]:
                if self._embedder is None:
                    self._embedder = get_embedder(self.config.embedder)
                if self._embedder.fingerprint() != manifest["embedder"]:
                    raise ConfigError(
                        f"l'index a été construit avec l'embedder « {manifest['embedder']} », pas "
                        f"« {self._embedder.fingerprint()} » ; relancez « tuile ingest » avec le même embedder")
                name = manifest["generation"]
                chunks = {c.id: c for c in load_store(self.config.index_dir, name)}
                bm25 = BM25Index.load(generation_dir(self.config.index_dir, name) / "bm25")
                if bm25 is None:   # an index written by another analyser version: rebuild its BM25
                    bm25 = BM25Index.from_texts(list(chunks), [bm25_text(c) for c in chunks.values()])
                self._gen = _Generation(name, open_collection(self.config.index_dir, name), chunks, bm25)
            return self._gen

    def chunks(self) -> list[Chunk]:
        """Every indexed passage, in index order."""
        return list(self._current().chunks.values())

    def search(self, question, k: int = 5, *, part: str | None = None,
               chapter_id: str | None = None, mode: str = "hybrid") -> list[Hit]:
        """Top ``k`` passages for ``question`` (text or ``Query``); ``mode``: "hybrid", "dense", "bm25"."""
        return self.search_runs(question, k, part=part, chapter_id=chapter_id, mode=mode).hits

    def search_runs(self, question, k: int = 5, *, part: str | None = None,
                    chapter_id: str | None = None, mode: str = "hybrid",
                    fusion: tuple[float, float] | None = None, rrf_k: int | None = None) -> "Runs":
        """The fused top ``k`` and both candidate rankings (the refusal decision reads them)."""
        if mode not in ("hybrid", "dense", "bm25"):
            raise ConfigError(f"mode de recherche inconnu « {mode} » ; connus : hybrid, dense, bm25")
        text = getattr(question, "text", question)
        sparse_terms = getattr(question, "index_terms", None)
        if sparse_terms is None:
            sparse_terms = index_terms(text)
        w_dense, w_sparse = fusion or FUSION
        rrf_k = RRF_K if rrf_k is None else rrf_k
        gen = self._current()
        allowed = None
        if part is not None or chapter_id is not None:
            allowed = {cid for cid, c in gen.chunks.items()
                       if (part is None or c.part == str(part)) and (chapter_id is None or c.chapter_id == chapter_id)}
            if not allowed:
                return Runs([], (), (), len(gen.chunks))
        dense = self._dense(gen, text, allowed) if mode != "bm25" else []
        sparse = gen.bm25.search(sparse_terms, CANDIDATES, allowed) if mode != "dense" else []
        fused: dict[str, float] = {}
        for ranked, weight in ((dense, w_dense), (sparse, w_sparse)):
            for rank, (cid, _) in enumerate(ranked):
                fused[cid] = fused.get(cid, 0.0) + weight / (rrf_k + rank + 1)
        dense_scores, bm25_scores = dict(dense), dict(sparse)
        order = sorted(fused, key=lambda cid: -fused[cid])[:k]
        hits = [_hit(gen.chunks[cid], fused[cid], dense_scores.get(cid, 0.0), bm25_scores.get(cid, 0.0))
                for cid in order]
        chapter = lambda cid: gen.chunks[cid].chapter_id   # noqa: E731
        return Runs(hits, tuple((chapter(c), s, c) for c, s in dense), tuple((chapter(c), s, c) for c, s in sparse),
                    len(gen.chunks))

    def _dense(self, gen: _Generation, question: str, allowed: set[str] | None) -> list[tuple[str, float]]:
        vector = query_vector(self._embedder, question)
        n = min(CANDIDATES, len(gen.chunks)) if allowed is None else min(CANDIDATES, len(allowed))
        where = None
        if allowed is not None:
            where = {"chapter_id": {"$in": sorted({gen.chunks[c].chapter_id for c in allowed})}}
        result = gen.collection.query(query_embeddings=[vector], n_results=max(n, 1), where=where,
                                      include=["distances"])
        # Chroma's cosine distance is 1 - cosine similarity.
        return [(cid, 1.0 - dist) for cid, dist in zip(result["ids"][0], result["distances"][0])]


def _hit(chunk: Chunk, score: float, dense: float, bm25: float) -> Hit:
    return Hit(chunk_id=chunk.id, chapter_id=chunk.chapter_id, part=chunk.part, part_title=chunk.part_title,
               chapter=chunk.chapter, title=chunk.title, section=chunk.section, anchor=chunk.anchor,
               path=chunk.path, text=chunk.text, score=score, dense_score=dense, bm25_score=bm25)


_DEFAULT: dict[Path, Retriever] = {}


def retrieve(question: str, k: int = 5, filters: dict | None = None, config: Config | None = None) -> list[Hit]:
    """Module-level entry on a cached ``Retriever`` per index directory.

    ``filters`` may hold ``part`` and/or ``chapter_id``.
    """
    config = config or load_config()
    retriever = _DEFAULT.get(config.index_dir)
    if retriever is None:
        retriever = _DEFAULT[config.index_dir] = Retriever(config)
    filters = filters or {}
    return retriever.search(question, k, part=filters.get("part"), chapter_id=filters.get("chapter_id"))
