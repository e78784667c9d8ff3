"""``tuile eval answers``: grounded answers, refusals and follow-ups, scored on data.

Reads three question sets beside this file and runs them through the public entry
``assistant.answer.answer`` with the composed generator on the real index:

- ``answers_inscope.yaml``: questions with gold chapter ids. Reports the share of answers
  citing a gold chapter, and the share of quoted sentences found verbatim in the section
  they cite (checked against the chapter files, not against the index).
- ``answers_outofscope.yaml`` against the in-scope set: refusal precision and recall.
- ``answers_followups.yaml``: two-turn conversations scored on the second question's gold
  chapters (with the history, and without it as a baseline).

``--calibrate`` first fits the refusal rule of ``assistant.relevance`` (weight and
threshold maximising the smaller of refusal precision and recall on these sets, with a
two-fold cross-validated figure to show how much of it is fit) and writes
``assistant/data/refusal.yaml``. Results go to ``evals/results/answers-<date>.json`` with
the corpus size. Questions whose gold chapters are not written yet are skipped and
counted; an out-of-scope question whose subject words appear in the corpus is dropped.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).parent
RESULTS = HERE / "results"
TARGETS = {"gold_cited": 0.90, "verbatim": 1.0, "refusal_precision": 0.90, "refusal_recall": 0.90,
           "followup_accuracy": 0.85}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--calibrate", action="store_true",
                        help="ajuster le seuil de refus sur ces questions et l'écrire dans assistant/data/refusal.yaml")
    parser.add_argument("--index", metavar="DIR", help="dossier de l'index (défaut : $TUILE_INDEX)")
    parser.add_argument("--out", metavar="DIR", default=str(RESULTS), help="dossier des résultats")
    parser.add_argument("--quiet", action="store_true", help="n'imprimer que le résumé")


def register(subparsers) -> None:
    """Add ``answers`` to the ``tuile eval`` subcommands."""
    p = subparsers.add_parser("answers", help="évaluer les réponses citées, les refus et les questions de suite")
    add_arguments(p)
    p.set_defaults(func=main)


def _load(name: str) -> dict:
    return yaml.safe_load((HERE / "data" / name).read_text(encoding="utf-8"))


def _final(stream):
    item = None
    for item in stream:
        pass
    return item


def _fit(inside: list[float], outside: list[float]) -> tuple[float, float, float]:
    """(threshold, precision, recall) refusing scores below threshold, best min(P, R)."""
    values = sorted(set(inside + outside))
    cuts = [values[0] - 1e-6] + [(a + b) / 2 for a, b in zip(values, values[1:])] + [values[-1] + 1e-6]
    best = (-1.0, -1.0, 0.0, 0.0, 0.0)
    for t in cuts:
        tp = sum(s < t for s in outside)
        fp = sum(s < t for s in inside)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / len(outside) if outside else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        if (min(p, r), f1) > best[:2]:
            best = (min(p, r), f1, t, p, r)
    return best[2], best[3], best[4]


def calibrate(inside: list[tuple[float, float]], outside: list[tuple[float, float]]) -> dict:
    """Grid over the known-term weight; per weight, the best threshold. Features: (dense, known)."""
    def scores(feats, w):
        return [d + w * c for d, c in feats]

    best = None
    for i in range(0, 41):
        w = i * 0.025
        t, p, r = _fit(scores(inside, w), scores(outside, w))
        key = (min(p, r), p + r, -w)
        if best is None or key > best[0]:
            best = (key, w, t, p, r)
    _, w, t, p, r = best
    # two-fold cross-validation: fit on half, measure on the other half
    folds = []
    for k in (0, 1):
        fit_in, fit_out = inside[k::2], outside[k::2]
        test_in, test_out = inside[1 - k::2], outside[1 - k::2]
        sub = max(((min(pp, rr), pp + rr, -ww), ww, tt) for ww, (tt, pp, rr) in
                  ((j * 0.025, _fit(scores(fit_in, j * 0.025), scores(fit_out, j * 0.025))) for j in range(41)))
        ww, tt = sub[1], sub[2]
        tp = sum(s < tt for s in scores(test_out, ww))
        fp = sum(s < tt for s in scores(test_in, ww))
        folds.append((tp / (tp + fp) if tp + fp else 0.0, tp / len(test_out) if test_out else 0.0))
    return {"weight": round(w, 4), "threshold": round(t, 4), "precision": round(p, 4), "recall": round(r, 4),
            "cv_precision": round(sum(f[0] for f in folds) / 2, 4), "cv_recall": round(sum(f[1] for f in folds) / 2, 4)}


def _write_threshold(fit: dict, n_in: int, n_out: int, chapters: int, path: Path) -> None:
    text = (
        "# Refusal rule of assistant.relevance: relevant when\n"
        "#   best dense cosine + weight * share of the query terms the guide uses >= threshold.\n"
        "# Written by `tuile eval answers --calibrate`: the weight and threshold that maximise the\n"
        "# smaller of refusal precision and recall on the eval sets (figures below, with a\n"
        "# two-fold cross-validated estimate). Re-run it when the corpus grows.\n"
        f"weight: {fit['weight']}\n"
        f"threshold: {fit['threshold']}\n"
        "calibrated: true\n"
        f"calibrated_on: {dt.date.today().isoformat()}\n"
        f"corpus_chapters: {chapters}\n"
        f"in_scope_questions: {n_in}\n"
        f"out_of_scope_questions: {n_out}\n"
        f"precision: {fit['precision']}\n"
        f"recall: {fit['recall']}\n"
        f"cv_precision: {fit['cv_precision']}\n"
        f"cv_recall: {fit['cv_recall']}\n"
    )
    path.write_text(text, encoding="utf-8")


def run(args) -> dict:
    from assistant._text import is_verbatim
    from ingest.anchors import fold
    from assistant.answer import K, answer
    from assistant.answer_records import Conversation
    from assistant.expand import expand
    from assistant.inputs import check_question
    from assistant.relevance import THRESHOLD_FILE, features, load_threshold, vocabulary
    from assistant.retrieve import Retriever
    from ingest.config import load_config
    from ingest.corpus import load_corpus

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # as assistant.answer does for its retriever
    config = load_config(index_dir=args.index, llm="composed")
    retriever = Retriever(config)
    indexed = {c.chapter_id for c in retriever.chunks()}
    # gold chapters count when indexed; quotes are checked against the files on disk
    on_disk = [c for c in load_corpus(config.corpus_dir) if c.id in indexed]
    sections = {(c.id, s.anchor): s.text for c in on_disk for s in c.sections}
    chapters = [c for c in on_disk if c.id != "parcours"]   # the reading-path page is no chapter
    present = {c.id for c in chapters}
    # an index older than the files quotes text the files no longer hold: say so, count it
    stale = sorted({c.chapter_id for c in retriever.chunks()
                    if c.chapter_id in present and not is_verbatim(c.text, sections.get((c.chapter_id, c.anchor), ""))})
    if stale:
        print(f"attention : l'index est plus ancien que {len(stale)} chapitre(s) ({', '.join(stale)}) ; "
              "relancez « tuile ingest » pour évaluer le corpus actuel", file=sys.stderr)
    corpus_text = fold(" ".join(s.text.lower() for c in chapters for s in c.sections))
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr))

    inscope_all = _load("answers_inscope.yaml")
    inscope = [q for q in inscope_all["questions"] if set(q["gold"]) & present]
    english = [q for q in inscope_all.get("english", []) if set(q["gold"]) & present]
    out_all = _load("answers_outofscope.yaml")["questions"]
    def mentioned(word: str) -> bool:
        return re.search(rf"\b{re.escape(fold(word.lower()))}\b", corpus_text) is not None

    outside = [q for q in out_all if not any(mentioned(w) for w in q.get("absent", []))]
    convs_all = _load("answers_followups.yaml")["conversations"]
    convs = [c for c in convs_all if set(c["gold"]) & present]

    def feats(question: str) -> tuple[float, float]:
        checked = check_question(question)
        query = expand(checked.text, checked.language)
        return features(query, retriever.search(query, k=K), vocab)

    vocab = vocabulary(retriever.chunks())
    calibration = None
    if args.calibrate:
        f_in = [feats(q["q"]) for q in inscope + english]
        f_out = [feats(q["q"]) for q in outside]
        calibration = calibrate(f_in, f_out)
        _write_threshold(calibration, len(f_in), len(f_out), len(chapters), THRESHOLD_FILE)
        load_threshold.cache_clear()
        say(f"seuil calibré : {calibration}")
    weight, threshold = load_threshold()

    def ask(question, conversation=None):
        start = time.perf_counter()
        final = _final(answer(question, conversation, "composed", retriever=retriever, config=config))
        return final, time.perf_counter() - start

    # (a) in-scope: gold chapter cited, quotes verbatim
    cited, quotes, verbatim, a_fail, latencies, v_fail = 0, 0, 0, [], [], []
    refused_in = 0
    for q in inscope:
        final, secs = ask(q["q"])
        latencies.append(secs)
        hit = final.kind == "answer" and bool(set(final.chapter_ids) & set(q["gold"]))
        cited += hit
        refused_in += final.kind == "refusal"
        by_n = {c.n: c for c in final.citations}
        for quote in final.quotes:
            quotes += 1
            c = by_n[quote.n]
            ok = is_verbatim(quote.text, sections.get((c.chapter_id, c.anchor), ""))
            verbatim += ok
            if not ok:
                v_fail.append({"quote": quote.text, "cited": c.link})
        if not hit:
            a_fail.append({"q": q["q"], "gold": q["gold"], "kind": final.kind, "cited": list(final.chapter_ids),
                           "relevance": final.relevance})
            say(f"  ✗ {q['q']} → {final.kind} {list(final.chapter_ids)} (attendu {q['gold']})")
    en_cited, en_fail = 0, []
    for q in english:
        final, _ = ask(q["q"])
        ok = final.kind == "answer" and bool(set(final.chapter_ids) & set(q["gold"]))
        en_cited += ok
        refused_in += final.kind == "refusal"
        if not ok:
            en_fail.append({"q": q["q"], "gold": q["gold"], "kind": final.kind, "cited": list(final.chapter_ids)})

    # (b) refusals
    refused_out, b_fail = 0, []
    for q in outside:
        final, _ = ask(q["q"])
        refused_out += final.kind == "refusal"
        if final.kind != "refusal":
            b_fail.append({"q": q["q"], "kind": q.get("kind"), "relevance": final.relevance,
                           "cited": list(final.chapter_ids)})
            say(f"  ✗ hors sujet non refusé : {q['q']} ({final.relevance})")
    precision = refused_out / (refused_out + refused_in) if refused_out + refused_in else 0.0
    recall = refused_out / len(outside) if outside else 0.0

    # (c) follow-ups, with the history and without it
    f_ok, f_base, c_fail = 0, 0, []
    for c in convs:
        first, _ = ask(c["first"])
        second, _ = ask(c["second"], Conversation().with_answer(first))
        alone, _ = ask(c["second"])
        ok = second.kind == "answer" and bool(set(second.chapter_ids) & set(c["gold"]))
        f_ok += ok
        f_base += alone.kind == "answer" and bool(set(alone.chapter_ids) & set(c["gold"]))
        if not ok:
            c_fail.append({"first": c["first"], "second": c["second"], "gold": c["gold"], "kind": second.kind,
                           "resolved": second.resolved_question, "cited": list(second.chapter_ids)})
            say(f"  ✗ suite : {c['first']} / {c['second']} → {second.kind} {list(second.chapter_ids)}")

    latencies.sort()
    n = len(inscope)
    figures = {
        "gold_cited": round(cited / n, 4) if n else None,
        "verbatim": round(verbatim / quotes, 4) if quotes else None,
        "refusal_precision": round(precision, 4),
        "refusal_recall": round(recall, 4),
        "followup_accuracy": round(f_ok / len(convs), 4) if convs else None,
        "followup_accuracy_without_history": round(f_base / len(convs), 4) if convs else None,
        "english_gold_cited": round(en_cited / len(english), 4) if english else None,
        "inscope_refused": refused_in,
    }
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "corpus": {"chapters": len(chapters), "chunks": len(retriever.chunks()), "stale_in_index": stale},
        "conditions": {"generator": "composed", "embedder": config.embedder, "k": K,
                       "refusal_weight": weight, "refusal_threshold": threshold,
                       "eval_latency_p50_s": round(latencies[len(latencies) // 2], 4) if latencies else None},
        "sets": {"inscope": n, "inscope_skipped_unwritten": len(inscope_all["questions"]) - n,
                 "english": len(english), "quotes": quotes, "out_of_scope": len(outside),
                 "out_of_scope_dropped_now_covered": len(out_all) - len(outside),
                 "followups": len(convs), "followups_skipped_unwritten": len(convs_all) - len(convs)},
        "calibration": calibration,
        "figures": figures,
        "targets": TARGETS,
        "failures": {"verbatim": v_fail, "inscope": a_fail, "english": en_fail, "out_of_scope": b_fail, "followups": c_fail},
    }


def _markdown(result: dict) -> str:
    f, s, c = result["figures"], result["sets"], result["conditions"]
    labels = {"gold_cited": "chapitre attendu cité (dans le sujet)", "verbatim": "phrases citées mot pour mot",
              "refusal_precision": "refus : précision", "refusal_recall": "refus : rappel",
              "followup_accuracy": "questions de suite : chapitre attendu cité"}
    lines = ["# Évaluation des réponses (générateur composé)", "",
             f"{result['date']} ; corpus de {result['corpus']['chapters']} chapitres "
             f"({result['corpus']['chunks']} passages), embedder {c['embedder']}, k = {c['k']} ; "
             f"seuil de refus : cosinus + {c['refusal_weight']} × part de termes connus ≥ {c['refusal_threshold']}.", "",
             f"Questions : {s['inscope']} dans le sujet (+{s['english']} en anglais), {s['quotes']} phrases citées, "
             f"{s['out_of_scope']} hors sujet, {s['followups']} conversations à deux tours.", "",
             "| mesure | valeur | cible |", "| --- | --- | --- |"]
    for key, target in TARGETS.items():
        lines.append(f"| {labels[key]} | {f[key]} | ≥ {target} |")
    lines += [f"| questions de suite sans l'historique (référence) | {f['followup_accuracy_without_history']} | — |",
              f"| questions en anglais : chapitre attendu cité | {f['english_gold_cited']} | — |"]
    if result.get("calibration"):
        cal = result["calibration"]
        lines += ["", f"Calibration du refus sur ces questions : précision {cal['precision']}, rappel {cal['recall']} ; "
                      f"validation croisée à deux plis : précision {cal['cv_precision']}, rappel {cal['cv_recall']}."]
    lines += ["", "Commande : `tuile eval answers` (calibration : `python -m evals.answers --calibrate`).", ""]
    return "\n".join(lines)


def main(argv_or_args=None) -> int:
    if isinstance(argv_or_args, argparse.Namespace):
        args = argv_or_args
    else:
        parser = argparse.ArgumentParser(prog="tuile eval answers", description=__doc__.splitlines()[0])
        add_arguments(parser)
        args = parser.parse_args(argv_or_args)
    for name, default in (("calibrate", False), ("index", None), ("out", str(RESULTS)), ("quiet", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    result = run(args)
    from evals.common import write_result

    path, _ = write_result("answers", result, _markdown(result), out=Path(args.out))
    f, s = result["figures"], result["sets"]
    print(f"corpus : {result['corpus']['chapters']} chapitres ; questions : {s['inscope']} dans le sujet "
          f"(+{s['english']} en anglais), {s['out_of_scope']} hors sujet, {s['followups']} suites")
    for key, target in TARGETS.items():
        value = f.get(key)
        mark = "ok" if value is not None and value >= target else "SOUS LA CIBLE"
        print(f"  {key:<20} {value if value is not None else '—':>7}   cible ≥ {target}   {mark}")
    print(f"  (suites sans historique : {f['followup_accuracy_without_history']} ; "
          f"anglais, chapitre attendu cité : {f['english_gold_cited']})")
    print(f"résultats : {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
