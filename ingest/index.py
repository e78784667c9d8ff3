"""Build the index: Chroma on disk for dense search, a BM25 index (``ingest.bm25``), one manifest.

``build_index(chapters, embedder, index_dir)`` is incremental and atomic:

- every build that changes anything writes a new *generation* (its own Chroma folder,
  chunk store and BM25 file) and then switches ``manifest.json`` to it with one
  ``os.replace``; a reader opened on the old generation keeps a complete index, and the
  generation before the current one is kept so readers in flight never lose theirs;
- a chapter whose content hash and embedder fingerprint are unchanged is not embedded
  again: its vectors are copied from the previous generation;
- a chapter that failed validation keeps its previous version in the index (nothing is
  lost because a file was broken); a file that disappeared is dropped;
- a build whose chapters and embedder match the manifest does nothing, without opening
  Chroma (a no-change re-ingest is dominated by reading the files).

We talk to ``chromadb`` directly rather than through ``langchain_chroma``: generations
need their own ``PersistentClient`` folders, vectors copied between collections by id,
and a guarantee that Chroma never falls back to its default embedding function (which
downloads a model); the raw client gives all three in a few lines.
"""
from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ingest.bm25 import BM25Index
from ingest.chunk import CHUNK_CHARS, EMBED_PROSE_CHARS, chunk_chapter, embedding_text
from ingest.embedders import Embedder
from ingest.errors import TuileError
from ingest.records import Chapter, Chunk

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

MANIFEST = "manifest.json"
# Part of the reuse key with the content hash and the embedder: passages cut or embedded
# differently must be rebuilt even when no chapter changed.
CHUNKING = f"chars={CHUNK_CHARS};embedded={EMBED_PROSE_CHARS}"
Progress = Callable[[int, int, str], None]   # (done, total, what)


@dataclass(frozen=True)
class IndexSummary:
    generation: str
    chapters: int
    chunks: int
    embedded: int          # chunks embedded in this run
    reused: int            # chunks whose vectors were copied from the previous generation
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    kept_broken: tuple[str, ...]   # chapters whose file is broken and whose old version was kept
    embedder: str
    seconds: float
    tokens: int = 0

    @property
    def unchanged(self) -> bool:
        return not (self.added or self.changed or self.removed or self.embedded)

    def line(self) -> str:
        if self.unchanged and not self.kept_broken:
            return (f"Index à jour : {self.chapters} chapitres, {self.chunks} passages, "
                    f"rien à refaire ({self.seconds:.1f} s).")
        rate = f", {self.tokens / self.seconds:.0f} jetons/s" if self.tokens and self.seconds else ""
        parts = [f"{len(self.added)} ajoutés", f"{len(self.changed)} modifiés", f"{len(self.removed)} retirés"]
        if self.kept_broken:
            parts.append(f"{len(self.kept_broken)} invalides conservés dans leur version précédente")
        return (f"Index construit : {self.chapters} chapitres, {self.chunks} passages "
                f"({self.embedded} encodés, {self.reused} réutilisés ; {', '.join(parts)}) "
                f"en {self.seconds:.1f} s{rate}.")


class IndexBusyError(TuileError):
    pass


def read_manifest(index_dir: Path) -> dict | None:
    path = Path(index_dir) / MANIFEST
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def generation_dir(index_dir: Path, generation: str) -> Path:
    return Path(index_dir) / "generations" / generation


def open_collection(index_dir: Path, generation: str):
    """Open one generation's Chroma collection (no embedding function: vectors are ours)."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(generation_dir(index_dir, generation) / "chroma"),
                                       settings=Settings(anonymized_telemetry=False))
    return client.get_or_create_collection("tuile", embedding_function=None, metadata={"hnsw:space": "cosine"})


def load_store(index_dir: Path, generation: str) -> list[Chunk]:
    data = json.loads((generation_dir(index_dir, generation) / "store.json").read_text(encoding="utf-8"))
    return [Chunk(**c) for c in data]


def build_index(chapters: Iterable[Chapter], embedder: Embedder, index_dir: Path | str, *,
                broken_paths: Iterable[str] = (), progress: Progress | None = None) -> IndexSummary:
    """Bring the index in ``index_dir`` in line with ``chapters``; see the module docstring."""
    start = time.perf_counter()
    index_dir = Path(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    chapters = list(chapters)
    broken_paths = set(broken_paths)
    fingerprint = embedder.fingerprint()
    with _exclusive(index_dir):
        old = read_manifest(index_dir)
        old_chapters: dict[str, dict] = old["chapters"] if old else {}
        same_embedder = bool(old) and old["embedder"] == fingerprint and old.get("chunking") == CHUNKING
        current = {c.id: c for c in chapters}
        kept_broken = {cid: e for cid, e in old_chapters.items() if e["path"] in broken_paths and cid not in current}
        reusable = {cid for cid, c in current.items()
                    if same_embedder and cid in old_chapters and old_chapters[cid]["sha256"] == c.sha256}
        added = tuple(sorted(cid for cid in current if cid not in old_chapters))
        changed = tuple(sorted(cid for cid in current if cid in old_chapters and cid not in reusable))
        removed = tuple(sorted(cid for cid in old_chapters if cid not in current and cid not in kept_broken))
        if old and same_embedder and not added and not changed and not removed:
            return IndexSummary(old["generation"], len(old_chapters), old["chunks"], 0, old["chunks"], (), (), (),
                                tuple(sorted(kept_broken)), fingerprint, time.perf_counter() - start)

        old_store = {c.id: c for c in load_store(index_dir, old["generation"])} if old else {}
        carried: list[Chunk] = [old_store[i] for cid in sorted(reusable | set(kept_broken))
                                for i in old_chapters[cid]["chunks"] if i in old_store]
        fresh: list[Chunk] = [ch for cid in sorted(set(current) - reusable) for ch in chunk_chapter(current[cid])]

        generation = f"gen-{int(time.time() * 1000):x}"
        new_dir = generation_dir(index_dir, generation)
        new_dir.mkdir(parents=True)
        try:
            collection = open_collection(index_dir, generation)
            if carried and old:
                _copy_vectors(open_collection(index_dir, old["generation"]), collection, carried, progress)
            tokens = _embed_into(collection, fresh, embedder, progress)
            store = carried + fresh
            (new_dir / "store.json").write_text(
                json.dumps([dataclasses.asdict(c) for c in store], ensure_ascii=False), encoding="utf-8")
            BM25Index.from_texts([c.id for c in store], [bm25_text(c) for c in store]).save(new_dir / "bm25")
        except BaseException:
            shutil.rmtree(new_dir, ignore_errors=True)
            raise
        by_chapter: dict[str, list[str]] = {}
        for c in store:
            by_chapter.setdefault(c.chapter_id, []).append(c.id)
        entries = {cid: {"sha256": c.sha256, "path": c.path, "chunks": by_chapter.get(cid, [])}
                   for cid, c in current.items()}
        entries.update(kept_broken)
        manifest = {"version": 1, "generation": generation, "embedder": fingerprint, "chunking": CHUNKING,
                    "embedder_dim": embedder.dim, "chunks": len(store), "chapters": entries,
                    "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    "previous": old["generation"] if old else None}
        tmp = index_dir / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, index_dir / MANIFEST)
        _drop_old_generations(index_dir, keep={generation, manifest["previous"]})
        return IndexSummary(generation, len(entries), len(store), len(fresh), len(carried), added, changed, removed,
                            tuple(sorted(kept_broken)), fingerprint, time.perf_counter() - start, tokens)


def bm25_text(chunk: Chunk) -> str:
    # The title and section heading count as text: questions often name the topic only.
    return f"{chunk.title} {chunk.section} {chunk.text}"


def _metadata(chunk: Chunk) -> dict:
    return {"chapter_id": chunk.chapter_id, "part": chunk.part, "chapter": chunk.chapter}


def _embed_into(collection, chunks: list[Chunk], embedder: Embedder, progress: Progress | None) -> int:
    batch = getattr(embedder, "batch_size", 32)
    total, tokens = len(chunks), 0
    for i in range(0, total, batch):
        part = chunks[i:i + batch]
        texts = [embedding_text(c) for c in part]
        vectors = embedder.embed_passages(texts)
        tokens += sum(len(t) for t in texts) // 3   # ~3.3 characters per e5 token in French prose
        collection.add(ids=[c.id for c in part], embeddings=vectors, metadatas=[_metadata(c) for c in part])
        if progress:
            progress(min(i + batch, total), total, "encodage des passages")
    return tokens


def _copy_vectors(source, target, chunks: list[Chunk], progress: Progress | None) -> None:
    for i in range(0, len(chunks), 256):
        part = chunks[i:i + 256]
        got = source.get(ids=[c.id for c in part], include=["embeddings"])
        vectors = dict(zip(got["ids"], got["embeddings"]))
        keep = [c for c in part if c.id in vectors]
        if keep:
            target.add(ids=[c.id for c in keep], embeddings=[list(vectors[c.id]) for c in keep],
                       metadatas=[_metadata(c) for c in keep])
        if progress:
            progress(min(i + 256, len(chunks)), len(chunks), "reprise des passages inchangés")


def _drop_old_generations(index_dir: Path, keep: set[str | None]) -> None:
    root = index_dir / "generations"
    for path in root.iterdir():
        if path.name not in keep:
            shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def _exclusive(index_dir: Path) -> Iterator[None]:
    with open(index_dir / ".lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise IndexBusyError(f"une autre ingestion est en cours dans {index_dir} ; réessayez ensuite") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
