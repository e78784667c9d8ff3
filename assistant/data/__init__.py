"""The assistant's data files; ``general_words()`` reads the everyday words once for every reader."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

GENERAL_WORDS_FILE = Path(__file__).parent / "general_words.yaml"


@lru_cache(maxsize=1)
def general_words() -> dict[str, tuple[str, ...]]:
    """The everyday words of ``general_words.yaml`` by language ("en", "fr"), as written there;
    empty when the file is missing."""
    if not GENERAL_WORDS_FILE.exists():
        return {}
    data = yaml.safe_load(GENERAL_WORDS_FILE.read_text(encoding="utf-8")) or {}
    return {lang: tuple(str(text).split()) for lang, text in data.items()}
