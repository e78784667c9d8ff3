"""Helpers of the assistant tests: two small real chapters, a lexical retriever over them.

A module with its own name (not ``conftest``) so that test files can import it while
other test folders have their own conftest.py.
"""
from __future__ import annotations

from pathlib import Path

from ingest.analyzer import terms
from assistant.records import Hit
from ingest.chunk import chunk_chapter

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "corpus"
# (weight, threshold) for tests, so that they do not depend on the calibrated file
TEST_THRESHOLD = (0.3, 0.95)


def _hit(chunk, score: float, dense: float, bm25: float) -> Hit:
    return Hit(chunk_id=chunk.id, chapter_id=chunk.chapter_id, part=chunk.part, part_title=chunk.part_title,
               chapter=chunk.chapter, title=chunk.title, section=chunk.section, anchor=chunk.anchor,
               path=chunk.path, text=chunk.text, score=score, dense_score=dense, bm25_score=bm25)


class LexicalRetriever:
    """A small real retriever: ranks the fixture chunks by shared terms with the question.

    Its dense score mimics e5's range (0.80 for a weak match, up to 0.92); no shared term
    means no hit at all, which the answer stage must turn into a refusal.
    """

    def __init__(self, chapters):
        self.chunks_ = [c for ch in chapters for c in chunk_chapter(ch)]
        self.calls: list[str] = []

    def chunks(self):
        return list(self.chunks_)

    def search(self, question, k=5, *, part=None, chapter_id=None):
        self.calls.append(question)
        q = set(terms(question))
        scored = []
        for chunk in self.chunks_:
            shared = len(q & set(terms(f"{chunk.title} {chunk.section} {chunk.text}")))
            if shared:
                scored.append((shared, -chunk.position, chunk))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        out = []
        for rank, (shared, _, chunk) in enumerate(scored[:k]):
            share = shared / max(len(q), 1)
            out.append(_hit(chunk, 1 / (60 + rank), 0.80 + 0.12 * share, float(shared)))
        return out


class ExplodingRetriever:
    """Fails the test if retrieval is reached (invalid input, reading-path routing)."""

    def search(self, *args, **kwargs):
        raise AssertionError("retrieval should not run for this question")


def run(stream):
    """Collect an answer stream: (pieces, final Answer)."""
    items = list(stream)
    return items[:-1], items[-1]
