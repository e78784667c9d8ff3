"""The default generator's answer: the guide's own sentences, chosen for the question's intent.

Public entry: ``compose`` (``assistant.compose.composer``); the lead rules read the question's
intent (``intent``), each section's quotable candidates (``candidates``, with the sentence
patterns of ``patterns``), the section's non-sentence blocks (``blocks``) and, on request, e5
similarity (``rerank``)."""
from assistant.compose.composer import RERANK_MIX, compose

__all__ = ["RERANK_MIX", "compose"]
