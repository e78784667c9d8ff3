"""Turn the guide in ``corpus/`` into a searchable index (Chroma on disk + French BM25)."""
