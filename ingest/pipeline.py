"""``ingest(config)``: read the corpus, keep what is valid, bring the index up to date."""
from __future__ import annotations

from dataclasses import dataclass

from ingest.config import Config, load_config
from ingest.corpus import scan_corpus
from ingest.embedders import get_embedder
from ingest.errors import CorpusError
from ingest.index import IndexSummary, Progress, build_index


@dataclass(frozen=True)
class IngestResult:
    summary: IndexSummary
    errors: tuple[CorpusError, ...]   # one per malformed file, which was skipped


def ingest(config: Config | None = None, progress: Progress | None = None) -> IngestResult:
    config = config or load_config()
    scanned = scan_corpus(config.corpus_dir)
    summary = build_index(scanned.chapters, get_embedder(config.embedder), config.index_dir,
                          broken_paths=[e.path for e in scanned.errors], progress=progress)
    return IngestResult(summary, scanned.errors)
