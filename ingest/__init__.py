"""Turn the guide in ``corpus/`` into a searchable index (Chroma on disk + French BM25).

Stages, one public entry each: ``load_corpus`` (load + validate), ``chunk_chapter``,
``get_embedder``, ``build_index``; ``ingest`` runs them all from a ``Config``.
"""
from ingest.chunk import chunk_chapter
from ingest.corpus import load_corpus
from ingest.embedders import get_embedder
from ingest.index import build_index
from ingest.pipeline import ingest

__all__ = ["load_corpus", "chunk_chapter", "get_embedder", "build_index", "ingest"]
