"""``tuile eval retrieval``: recall@1, recall@5 and MRR of BM25, dense and hybrid retrieval.

A question counts as found at rank r when the r-th passage comes from one of its gold
chapters. The set is ``evals/data/retrieval.yaml``: French questions paraphrased from the
chapters, each with the chapter ids that answer it.
"""
from __future__ import annotations

import argparse

from assistant.retrieve import Retriever
from evals.common import corpus_size, load_set, write_result
from ingest.config import load_config

MODES = ("bm25", "dense", "hybrid")


def evaluate(retriever: Retriever, questions: list[dict], k: int = 5) -> dict[str, dict[str, float]]:
    scores: dict[str, dict[str, float]] = {}
    for mode in MODES:
        r1 = r5 = rr = 0.0
        for item in questions:
            gold = set(item["gold"])
            ranks = [i for i, h in enumerate(retriever.search(item["question"], 10, mode=mode), 1)
                     if h.chapter_id in gold]
            first = ranks[0] if ranks else None
            r1 += first == 1
            r5 += first is not None and first <= k
            rr += 1.0 / first if first else 0.0
        n = len(questions)
        scores[mode] = {"recall@1": r1 / n, f"recall@{k}": r5 / n, "mrr": rr / n}
    return scores


def main(args: argparse.Namespace) -> int:
    config = load_config(index_dir=getattr(args, "index", None))
    questions = load_set("retrieval")
    available = {c.chapter_id for c in Retriever(config).chunks()}
    questions = [q for q in questions if set(q["gold"]) & available]
    scores = evaluate(Retriever(config), questions)
    size = corpus_size(config)
    rows = "\n".join(f"| {m} | {s['recall@1']:.3f} | {s['recall@5']:.3f} | {s['mrr']:.3f} |" for m, s in scores.items())
    md = (f"# Évaluation de la recherche\n\n{len(questions)} questions, corpus de {size['chapters']} chapitres, "
          f"embedder {config.embedder}.\n\n| mode | recall@1 | recall@5 | MRR |\n| --- | --- | --- | --- |\n{rows}\n\n"
          "Commande : `tuile eval retrieval`.\n")
    jpath, _ = write_result("retrieval", {"questions": len(questions), "corpus": size,
                                          "embedder": config.embedder, "scores": scores}, md)
    print(md)
    print(f"résultats écrits dans {jpath}")
    return 0
