"""Benchmark of ingestion and retrieval on this machine (not a test: targets are checked here).

Run: ``.venv/bin/python -m evals.bench_ingest``. Measures, on a copy of the corpus:
cold ingest of the whole corpus (and where the time goes: embedding vs the rest, tokens per
second), no-change re-ingest (the ``tuile ingest`` command, wall clock, imports included),
re-ingest after one chapter changed, warm query latency p50/p95 over the retrieval eval's
questions, and the peak RSS of a process that serves queries. Targets (issue 2): cold ≤ 180 s,
no-change ≤ 3 s, query p95 ≤ 60 ms, serving RSS ≤ 1.5 GB.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evals.common import corpus_size, load_set, write_result
from ingest.config import REPO_ROOT, load_config
from ingest.embedders import get_embedder
from ingest.pipeline import ingest

_QUERY_SCRIPT = r"""
import json, resource, statistics, sys, time
from assistant.search.retrieve import Retriever
from ingest.config import load_config
questions = json.loads(sys.argv[2])
r = Retriever(load_config(index_dir=sys.argv[1]))
for q in questions[:5]:
    r.search(q, 5)
times = []
for q in questions:
    t = time.perf_counter(); r.search(q, 5); times.append((time.perf_counter() - t) * 1000)
times.sort()
print(json.dumps({"n": len(times), "p50_ms": statistics.median(times),
                  "p95_ms": times[int(0.95 * (len(times) - 1))],
                  "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


class _TimedEmbedder:
    """Wraps the real embedder to split cold-ingest time into embedding and the rest."""

    def __init__(self, inner) -> None:
        self.inner, self.seconds, self.chars = inner, 0.0, 0
        self.name, self.dim, self.batch_size = inner.name, inner.dim, getattr(inner, "batch_size", 32)

    def embed_passages(self, texts):
        t = time.perf_counter()
        out = self.inner.embed_passages(texts)
        self.seconds += time.perf_counter() - t
        self.chars += sum(map(len, texts))
        return out

    def embed_query(self, text):
        return self.inner.embed_query(text)

    def fingerprint(self):
        return self.inner.fingerprint()


def main() -> int:
    from ingest.chunk import embedding_text
    from ingest.corpus import scan_corpus
    from ingest.chunk import chunk_chapter
    from ingest.index import build_index

    work = Path(tempfile.mkdtemp(prefix="tuile-bench-"))
    corpus = work / "corpus"
    shutil.copytree(REPO_ROOT / "corpus", corpus)
    config = load_config(corpus_dir=corpus, index_dir=work / "index")
    scanned = scan_corpus(corpus)
    embedder = _TimedEmbedder(get_embedder(config.embedder))
    texts = [embedding_text(c) for ch in scanned.chapters for c in chunk_chapter(ch)]
    tokens = sum(embedder.inner._model.token_count(t) for t in texts) if hasattr(embedder.inner, "_model") else 0

    t0 = time.perf_counter()
    cold = build_index(scanned.chapters, embedder, config.index_dir)
    cold_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", "ingest", "--quiet", "--corpus", str(corpus),
                           "--index", str(config.index_dir)], capture_output=True, text=True, cwd=REPO_ROOT)
    nochange_s = time.perf_counter() - t0
    assert "rien à refaire" in proc.stdout, proc.stdout + proc.stderr

    victim = corpus / "03-performance" / "07-transposition.md"
    victim.write_text(victim.read_text(encoding="utf-8") + "\nUne phrase ajoutée pour le banc d'essai.\n",
                      encoding="utf-8")
    t0 = time.perf_counter()
    changed = ingest(config).summary
    changed_s = time.perf_counter() - t0

    questions = [q["question"] for q in load_set("retrieval")]
    out = subprocess.run([sys.executable, "-c", _QUERY_SCRIPT, str(config.index_dir), json.dumps(questions)],
                         capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    query = json.loads(out.stdout.strip().splitlines()[-1])
    shutil.rmtree(work, ignore_errors=True)

    size = corpus_size(load_config())
    result = {
        "corpus": size, "chunks": cold.chunks, "embedder": cold.embedder,
        "cold_ingest_s": round(cold_s, 1), "cold_embedding_s": round(embedder.seconds, 1),
        "cold_other_s": round(cold_s - embedder.seconds, 1), "embedded_tokens": tokens,
        "tokens_per_s": round(tokens / embedder.seconds) if embedder.seconds else None,
        "nochange_reingest_cli_s": round(nochange_s, 2),
        "one_chapter_changed_s": round(changed_s, 1), "one_chapter_changed_embedded": changed.embedded,
        "query": query, "load_average_at_end": os.getloadavg(),
    }
    md = f"""# Banc d'essai : ingestion et recherche

Machine : {os.cpu_count()} cœurs, sans GPU. Corpus : {size['chapters']} chapitres + la page des parcours,
{cold.chunks} passages. Embedder : {cold.embedder} (texte encodé : ligne de contexte + début du passage).
Commande : `.venv/bin/python -m evals.bench_ingest`.

| mesure | valeur | cible |
| --- | --- | --- |
| ingestion à froid | {cold_s:.1f} s (encodage {embedder.seconds:.1f} s, reste {cold_s - embedder.seconds:.1f} s) | ≤ 180 s |
| débit d'encodage | {result['tokens_per_s']} jetons/s ({tokens} jetons) | |
| ré-ingestion sans changement (`tuile ingest`, imports compris) | {nochange_s:.2f} s | ≤ 3 s |
| ré-ingestion après un chapitre modifié | {changed_s:.1f} s ({changed.embedded} passages encodés) | |
| requête à chaud, p50 / p95 ({query['n']} questions) | {query['p50_ms']:.1f} / {query['p95_ms']:.1f} ms | p95 ≤ 60 ms |
| RSS maximale du processus qui sert les requêtes | {query['max_rss_mb']:.0f} Mo | ≤ 1 536 Mo |

Charge moyenne de la machine à la fin : {", ".join(f"{x:.2f}" for x in os.getloadavg())}.
"""
    jpath, _ = write_result("bench-ingest", result, md)
    print(md)
    print(f"résultats écrits dans {jpath}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
