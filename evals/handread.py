"""Draw the sample of test questions that a person reads by hand, and print their answers.

    python -m evals.handread [--n 40] [--seed 20261201] [--split test|dev] [--out FILE.json]

Draws ``n`` questions at random (fixed seed) from ``evals/data/answers_inscope_test.yaml``
(``--split dev``: from ``answers_inscope.yaml`` and every ``answers_inscope_dev*.yaml``, the
sets the composer is tuned on),
runs each through the public entry ``assistant.answer.answer`` (composed generator, the
configured index) and writes question, kind, lead (the opening paragraph), points, the whole answer as shown and
the cited chapters as JSON. The
verdicts (does the lead answer the question?) are a reader's, written beside them in
``evals/results/answers-handread-<date>.md``; nothing here judges.
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import yaml

from assistant.answer import answer
from evals.common import DATA, split_files



def _clean(item: dict) -> dict:
    if item.get("kind") is False:      # YAML 1.1 reads a bare `off` as false
        item["kind"] = "off"
    return item


def _opening(final) -> str:
    """The answer's opening paragraph as shown (after a partial answer's « Le guide en parle
    dans … » paragraph), up to the first point or the « Pour approfondir » list."""
    paragraphs = [p for p in final.text.split("\n\n") if p.strip()]
    if final.decision == "partial":
        paragraphs = paragraphs[1:]
    return paragraphs[0] if paragraphs else final.text


def sample(n: int, seed: int, split: str = "test") -> list[dict]:
    items = []
    for name in split_files("answers_inscope", split):
        data = yaml.safe_load((DATA / f"{name}.yaml").read_text(encoding="utf-8"))
        items += [_clean(dict(d)) for d in data["questions"]]
    return random.Random(seed).sample(items, n)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--out", default="handread.json")
    args = parser.parse_args(argv)
    rows = []
    for item in sample(args.n, args.seed, args.split):
        final = list(answer(item["q"], None, "composed"))[-1]
        rows.append({"q": item["q"], "kind": item.get("kind"), "lang": item.get("lang", "fr"),
                     "gold": item.get("gold", []), "answer_kind": final.kind, "decision": final.decision,
                     "lead": _opening(final),
                     "points": [q.text for q in final.quotes[1:]], "text": final.text,
                     "chapters": list(final.chapter_ids)})
    Path(args.out).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{len(rows)} answers written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
