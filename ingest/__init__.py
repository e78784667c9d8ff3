"""Turn the guide in ``corpus/`` into a searchable index (Chroma on disk + BM25 on bm25s).

Stages, one public entry each: ``load_corpus`` (load + validate), ``chunk_chapter``,
``get_embedder``, ``build_index``; ``ingest`` runs them all from a ``Config``.

The entries are imported on first use, so that ``ingest.config`` and ``ingest.errors`` load
without LangChain or Chroma (the ``tuile`` dispatcher imports them on a GPU host that only
has torch and triton, to run ``tuile kernel``).
"""
from __future__ import annotations

import importlib

_ENTRIES = {
    "load_corpus": "ingest.corpus",
    "chunk_chapter": "ingest.chunk",
    "get_embedder": "ingest.embedders",
    "build_index": "ingest.index",
    "ingest": "ingest.pipeline",
}
__all__ = list(_ENTRIES)


def __getattr__(name: str):
    if name in _ENTRIES:
        return getattr(importlib.import_module(_ENTRIES[name]), name)
    raise AttributeError(f"module 'ingest' has no attribute {name!r}")
