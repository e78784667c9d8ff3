"""Retrieval, cited answers and the reading-path dialogue, on top of the ingested guide."""
