"""Records of the assistant stage; plain dataclasses that serialise to JSON."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    chapter_id: str
    part: str
    part_title: str
    chapter: int
    title: str
    section: str
    anchor: str
    path: str             # chapter file relative to corpus/: "03-performance/07-transposition.md"
    text: str
    score: float          # fused reciprocal-rank score (higher is better)
    dense_score: float    # cosine similarity of the dense retriever (0 when not found by it)
    bm25_score: float     # BM25 score (0 when not found by it)

    @property
    def label(self) -> str:
        """Citation label: "Performance · 7. Étude de cas : … › Version naïve"."""
        base = f"{self.part_title} · {self.chapter}. {self.title}"
        return f"{base} › {self.section}" if self.section else base

    @property
    def link(self) -> str:
        """Relative link to the chapter file and section anchor."""
        return f"corpus/{self.path}" + (f"#{self.anchor}" if self.anchor else "")
