"""Fixtures of the assistant tests (the helpers live in answer_fixtures.py)."""
from __future__ import annotations

import pytest

from answer_fixtures import CORPUS, LexicalRetriever
from ingest.corpus import load_corpus


@pytest.fixture(scope="session")
def chapters():
    return load_corpus(CORPUS)


@pytest.fixture(scope="session")
def sections(chapters):
    """{(chapter_id, anchor): section text} to check quotes against the files themselves."""
    return {(ch.id, s.anchor): s.text for ch in chapters for s in ch.sections}


@pytest.fixture
def retriever(chapters):
    return LexicalRetriever(chapters)
