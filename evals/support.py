"""Choose the support threshold of LLM answers on the dev pairs (``evals/data/support_dev.yaml``).

    python -m evals.support [--corpus corpus]

For each threshold from 0.2 to 0.8 it counts the supported pairs kept and the unsupported
ones rejected by ``assistant.support.support`` (figure check included) and writes
``evals/results/support-dev.md`` and ``.json``. Reads the corpus files, no index.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import yaml

from assistant.support import support
from ingest.corpus import load_corpus

HERE = Path(__file__).parent


def measure(corpus: Path) -> dict:
    pairs = yaml.safe_load((HERE / "data" / "support_dev.yaml").read_text(encoding="utf-8"))["pairs"]
    sections = {(ch.id, s.anchor): s.text for ch in load_corpus(corpus) for s in ch.sections}
    rows = []
    for p in pairs:
        text = sections[(p["chapter"], p["anchor"])]
        s = support(p["claim"], [text], threshold=0.0)
        rows.append({**p, "overlap": s.overlap, "missing_figures": list(s.missing_figures)})
    sweep = []
    for t in [x / 10 for x in range(2, 9)]:
        kept = sum(r["supported"] and r["overlap"] >= t and not r["missing_figures"] for r in rows)
        rejected = sum(not r["supported"] and (r["overlap"] < t or bool(r["missing_figures"])) for r in rows)
        sweep.append({"threshold": t, "supported_kept": kept, "unsupported_rejected": rejected})
    n_sup = sum(r["supported"] for r in rows)
    return {"pairs": rows, "sweep": sweep, "supported": n_sup, "unsupported": len(rows) - n_sup}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="corpus")
    args = parser.parse_args(argv)
    result = measure(Path(args.corpus))
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "support-dev.json").write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    lines = [f"# Support check of LLM sentences: dev pairs ({result['supported']} supported, "
             f"{result['unsupported']} not)", "", "| overlap threshold | supported kept | unsupported rejected |",
             "| --- | --- | --- |"]
    lines += [f"| {s['threshold']:.1f} | {s['supported_kept']}/{result['supported']} | "
              f"{s['unsupported_rejected']}/{result['unsupported']} |" for s in result["sweep"]]
    lines += ["", "| supported | overlap | missing figures | claim |", "| --- | --- | --- | --- |"]
    lines += [f"| {r['supported']} | {r['overlap']:.2f} | {' '.join(r['missing_figures'])} | {r['claim']} |"
              for r in result["pairs"]]
    (out / "support-dev.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:len(result["sweep"]) + 4]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
