"""``tuile eval answers``: grounded answers, refusals and follow-ups, on dev and test side by side.

Every question goes through the public entry ``assistant.answer.answer`` with the composed
generator on the real index. Two splits, read from ``evals/data/``:

- **dev** (tuned on): ``answers_inscope.yaml`` (French questions and an ``english`` list),
  ``answers_outofscope.yaml``, ``answers_followups.yaml``, plus the ``*_dev.yaml`` parts and
  the ``*_dev2.yaml``, ``*_dev3.yaml``, ``*_dev4.yaml``… parts (the earlier test splits: each,
  once reported, was tuned on, so it moved to dev; ``evals.common.split_files`` finds them);
- **test** (never tuned on): ``answers_inscope_test.yaml``, ``answers_outofscope_test.yaml``,
  ``answers_followups_test.yaml``, written from the chapters by someone who never saw the
  code, before the tuning round it reports on.

Figures per split: gold chapter cited (all, French, English), in-scope questions refused
(all, English), out-of-scope refused (all and per kind: off, near, trap), refusal
precision, partial answers, two-turn follow-ups, quotes verbatim, latency p50/p95.

``--calibrate`` first fits the refusal model (``evals.calibrate``) on **dev only** (the
in-scope questions of this eval and of ``retrieval.yaml``, against the out-of-scope dev
questions) and writes ``assistant/data/refusal.yaml`` with its 5-fold cross-validated
figures and its leave-one-set-out figures (fitted without one writing round of dev files,
``*.yaml``, ``*_dev.yaml``, ``*_dev2.yaml``…, scored on it). ``--dev`` is ``--split dev``. Results: ``evals/results/answers-<date>.json`` and ``.md`` (date, machine,
corpus size). Questions whose gold chapters are not indexed are skipped and counted; an
out-of-scope question whose ``absent`` words a chapter now uses is dropped and counted.
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

from evals.common import DATA, RESULTS, split_files

# Goals on test (the README quotes them).
TARGETS = {"gold_cited": (">=", 0.90), "inscope_refused": ("<=", 0.03), "english_refused": ("<=", 0.05),
           "outside_refused": (">=", 0.90), "near_refused": (">=", 0.85), "refusal_precision": (">=", 0.90),
           "followup_accuracy": (">=", 0.95), "verbatim": (">=", 1.0), "latency_p95_s": ("<=", 0.300)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--calibrate", action="store_true",
                        help="ajuster le modèle de refus sur le jeu dev et l'écrire dans assistant/data/refusal.yaml")
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both",
                        help="jeu évalué : dev, test ou les deux côte à côte (défaut)")
    parser.add_argument("--dev", dest="split", action="store_const", const="dev",
                        help="dev seulement (comme --split dev)")
    parser.add_argument("--index", metavar="DIR", help="dossier de l'index (défaut : $TUILE_INDEX)")
    parser.add_argument("--out", metavar="DIR", default=str(RESULTS), help="dossier des résultats")
    parser.add_argument("--quiet", action="store_true", help="n'imprimer que le résumé")


def register(subparsers) -> None:
    """Add ``answers`` to the ``tuile eval`` subcommands."""
    p = subparsers.add_parser("answers", help="évaluer les réponses citées, les refus et les questions de suite")
    add_arguments(p)
    p.set_defaults(func=main)


def _read(name: str):
    path = DATA / name
    return yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None


def _items(data, key: str = "questions") -> list[dict]:
    if data is None:
        return []
    if isinstance(data, list):
        return [_clean(dict(d)) for d in data]
    out = [dict(d) for d in data.get(key) or []]
    out += [dict(d, lang="en") for d in data.get("english") or []]
    return [_clean(d) for d in out]


def _clean(item: dict) -> dict:
    # YAML 1.1 reads a bare `off` as false
    if item.get("kind") is False:
        item["kind"] = "off"
    return item


def load_split(split: str) -> dict | None:
    """The question sets of ``split`` ("dev" or "test"); None when test is not there."""
    parts = tuple(tuple(f"{n}.yaml" for n in split_files(stem, split))
                  for stem in ("answers_inscope", "answers_outofscope", "answers_followups"))
    if split == "test" and not any(parts):
        return None
    inscope = [dict(q, set=_set_name(n)) for n in parts[0] for q in _items(_read(n))]
    outside = [dict(q, set=_set_name(n)) for n in parts[1] for q in _items(_read(n))]
    convs = [c for n in parts[2] for c in _items(_read(n), "conversations")]
    return {"inscope": inscope, "outside": outside, "conversations": convs}


def _set_name(file_name: str) -> str:
    """The question set a file belongs to (one writing round): "first", "dev", "dev2", … "test"."""
    found = re.search(r"_(dev\d*|test)$", Path(file_name).stem)
    return found.group(1) if found else "first"


def _final(stream):
    item = None
    for item in stream:
        pass
    return item


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


class EvalEnv:
    """The real index and the guide on disk, opened once for the whole run."""

    def __init__(self, index: str | None) -> None:
        from assistant.answer import lexicon_for
        from assistant.search.retrieve import Retriever
        from ingest.anchors import fold
        from ingest.config import load_config
        from ingest.corpus import load_corpus
        from ingest.sentences import is_verbatim

        self.config = load_config(index_dir=index, llm="composed")
        self.retriever = Retriever(self.config)
        chunks = self.retriever.chunks()
        indexed = {c.chapter_id for c in chunks}
        on_disk = [c for c in load_corpus(self.config.corpus_dir) if c.id in indexed]
        self.sections = {(c.id, s.anchor): s.text for c in on_disk for s in c.sections}
        self.chapters = [c for c in on_disk if c.id != "parcours"]   # the reading-path page is no chapter
        self.present = {c.id for c in self.chapters}
        self.stale = sorted({c.chapter_id for c in chunks if c.chapter_id in self.present
                             and not is_verbatim(c.text, self.sections.get((c.chapter_id, c.anchor), ""))})
        self.corpus_text = fold(" ".join(s.text.lower() for c in self.chapters for s in c.sections))
        self.chunks = len(chunks)
        self.lexicon = lexicon_for(self.retriever, self.config)

    def mentioned(self, word: str) -> bool:
        from ingest.anchors import fold
        return re.search(rf"\b{re.escape(fold(str(word).lower()))}\b", self.corpus_text) is not None

    def ask(self, question, conversation=None):
        from assistant.answer import answer
        start = time.perf_counter()
        final = _final(answer(question, conversation, "composed", retriever=self.retriever, config=self.config))
        return final, time.perf_counter() - start

    def features(self, question: str) -> dict:
        from assistant.inputs import check_question
        from assistant.search.query import analyse
        from assistant.search.relevance import features
        checked = check_question(question)
        query = analyse(checked.text, checked.language, self.lexicon)
        return features(query, self.retriever.search_runs(query, k=5), self.lexicon)[0]


def _language(item: dict) -> str:
    from assistant.inputs import check_question
    return item.get("lang") or check_question(item["q"]).language


def evaluate_split(env: EvalEnv, sets: dict, say) -> dict:
    from assistant.answer_records import Conversation
    from ingest.sentences import is_verbatim

    inscope = [q for q in sets["inscope"] if set(q["gold"]) & env.present]
    outside = [q for q in sets["outside"] if not any(env.mentioned(w) for w in q.get("absent") or [])]
    convs = [c for c in sets["conversations"] if set(c["gold"]) & env.present]
    n = {"cited": 0, "cited_en": 0, "refused": 0, "refused_en": 0, "partial": 0, "en": 0, "quotes": 0, "verbatim": 0}
    failures = {"inscope": [], "outside": [], "followups": [], "verbatim": []}
    latencies = []
    for q in inscope:
        final, secs = env.ask(q["q"])
        latencies.append(secs)
        en = _language(q) == "en"
        hit = final.kind == "answer" and bool(set(final.chapter_ids) & set(q["gold"]))
        n["cited"] += hit
        n["en"] += en
        n["cited_en"] += hit and en
        n["refused"] += final.kind == "refusal"
        n["refused_en"] += final.kind == "refusal" and en
        n["partial"] += final.decision == "partial"
        by_n = {c.n: c for c in final.citations}
        for quote in final.quotes:
            c = by_n[quote.n]
            ok = is_verbatim(quote.text, env.sections.get((c.chapter_id, c.anchor), ""))
            n["quotes"] += 1
            n["verbatim"] += ok
            if not ok:
                failures["verbatim"].append({"quote": quote.text, "cited": c.link})
        if not hit:
            failures["inscope"].append({"q": q["q"], "gold": q["gold"], "kind": final.kind,
                                        "decision": final.decision, "cited": list(final.chapter_ids),
                                        "relevance": final.relevance})
            say(f"  ✗ {q['q']} → {final.kind} {list(final.chapter_ids)} (attendu {q['gold']})")
    by_kind: dict[str, list[int]] = {}
    refused_out = partial_out = 0
    for q in outside:
        final, _ = env.ask(q["q"])
        refused = final.kind == "refusal"
        refused_out += refused
        partial_out += final.decision == "partial"
        kind = q.get("kind", "off")
        by_kind.setdefault(kind, [0, 0])
        by_kind[kind][0] += refused
        by_kind[kind][1] += 1
        if not refused:
            failures["outside"].append({"q": q["q"], "kind": kind, "decision": final.decision,
                                        "relevance": final.relevance, "cited": list(final.chapter_ids)})
            say(f"  ✗ hors sujet non refusé : {q['q']} ({final.decision}, {final.relevance})")
    f_ok = f_base = 0
    for c in convs:
        first, _ = env.ask(c["first"])
        second, _ = env.ask(c["second"], Conversation().with_answer(first))
        alone, _ = env.ask(c["second"])
        ok = second.kind == "answer" and bool(set(second.chapter_ids) & set(c["gold"]))
        f_ok += ok
        f_base += alone.kind == "answer" and bool(set(alone.chapter_ids) & set(c["gold"]))
        if not ok:
            failures["followups"].append({"first": c["first"], "second": c["second"], "gold": c["gold"],
                                          "kind": second.kind, "resolved": second.resolved_question,
                                          "cited": list(second.chapter_ids)})
            say(f"  ✗ suite : {c['first']} / {c['second']} → {second.kind} {list(second.chapter_ids)}")
    latencies.sort()
    refused_in = n["refused"]
    figures = {
        "gold_cited": _ratio(n["cited"], len(inscope)),
        "gold_cited_fr": _ratio(n["cited"] - n["cited_en"], len(inscope) - n["en"]),
        "gold_cited_en": _ratio(n["cited_en"], n["en"]),
        "inscope_refused": _ratio(refused_in, len(inscope)),
        "english_refused": _ratio(n["refused_en"], n["en"]),
        "inscope_partial": _ratio(n["partial"], len(inscope)),
        "outside_refused": _ratio(refused_out, len(outside)),
        "off_refused": _ratio(*by_kind.get("off", [0, 0])),
        "near_refused": _ratio(*by_kind.get("near", [0, 0])),
        "trap_refused": _ratio(*by_kind.get("trap", [0, 0])),
        "outside_partial": _ratio(partial_out, len(outside)),
        "refusal_precision": _ratio(refused_out, refused_out + refused_in),
        "followup_accuracy": _ratio(f_ok, len(convs)),
        "followup_without_history": _ratio(f_base, len(convs)),
        "verbatim": _ratio(n["verbatim"], n["quotes"]),
        "latency_p50_s": round(latencies[len(latencies) // 2], 4) if latencies else None,
        "latency_p95_s": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 4) if latencies else None,
    }
    counts = {"inscope": len(inscope), "english": n["en"], "inscope_skipped_unwritten": len(sets["inscope"]) - len(inscope),
              "outside": len(outside), "outside_by_kind": {k: v[1] for k, v in by_kind.items()},
              "outside_dropped_now_covered": len(sets["outside"]) - len(outside),
              "followups": len(convs), "quotes": n["quotes"]}
    return {"figures": figures, "counts": counts, "failures": failures}


def calibrate(env: EvalEnv, dev: dict, say) -> dict:
    """Fit the refusal model on dev questions only and write ``assistant/data/refusal.yaml``."""
    from assistant.search.relevance import MODEL_FILE, load_model
    from evals.calibrate import fit_refusal
    from evals.common import load_set

    kept_in = [q for q in dev["inscope"] if set(q["gold"]) & env.present]
    inside = [q["q"] for q in kept_in]
    retrieval = [q["question"] for q in load_set("retrieval") if set(q["gold"]) & env.present]
    kept = [q for q in dev["outside"] if not any(env.mentioned(w) for w in q.get("absent") or [])]
    outside = [q["q"] for q in kept]
    # the retrieval questions have no out-of-scope partner set: always trained on (set None)
    groups = ([q.get("set") for q in kept_in] + [None] * len(retrieval), [q.get("set") for q in kept])
    fit = fit_refusal([env.features(q) for q in inside + retrieval], [env.features(q) for q in outside],
                      kinds=[q.get("kind", "off") for q in kept], groups=groups)
    write_model(fit, len(inside) + len(retrieval), len(outside), len(env.chapters), MODEL_FILE)
    load_model.cache_clear()
    say(f"modèle de refus ajusté : {fit['cv']} (validation croisée)")
    return fit


def write_model(fit: dict, n_in: int, n_out: int, chapters: int, path: Path) -> None:
    cv, fitted, by_set = fit["cv"], fit["fitted"], fit.get("by_set") or {}
    head = (
        "# Refusal model of assistant.search.relevance: p = sigmoid(bias + sum w_f (x_f - mean_f) / scale_f);\n"
        "# refuse when p < refuse_below, partial answer when p < partial_below, else answer.\n"
        "# Written by `python -m evals.answers --calibrate`: L2 logistic regression fitted on the dev\n"
        f"# questions only ({n_in} in scope, {n_out} out of scope, {chapters} chapters), on {dt.date.today().isoformat()}.\n"
        f"# {fit['folds']}-fold cross-validated (cut points chosen inside each fold): refusal precision\n"
        f"# {cv['precision']}, recall {cv['recall']}, in-scope refused {cv['inscope_refused']}, in-scope partial\n"
        f"# {cv['inscope_partial']}, English in-scope refused {cv.get('english_refused')}, near-topic refused\n"
        f"# {cv.get('near_refused')}; on the fitted data: precision {fitted['precision']}, recall {fitted['recall']}.\n"
        f"# Leave-one-set-out (fitted without one writing round, scored on it): precision\n"
        f"# {by_set.get('precision')}, recall {by_set.get('recall')}, in-scope refused {by_set.get('inscope_refused')}, "
        f"English {by_set.get('english_refused')}.\n"
        f"# Cut rule: highest cut keeping training in-scope refusals within {fit.get('budget')} per language,\n"
        "# the English cut never above the French one (evals/calibrate.py).\n"
        "# Re-run it when the corpus or the features change; never on the test sets.\n")
    body = {k: fit[k] for k in ("weights", "bias", "mean", "scale", "refuse_below", "refuse_below_en", "partial_below")
            if k in fit}
    body.update({"calibrated_on": dt.date.today().isoformat(), "corpus_chapters": chapters,
                 "dev_in_scope": n_in, "dev_out_of_scope": n_out, "l2": fit["l2"], "budget": fit.get("budget"),
                 "cv": cv, "by_set": by_set, "fitted": fitted})
    path.write_text(head + yaml.safe_dump(body, sort_keys=False, allow_unicode=True), encoding="utf-8")


def run(args) -> dict:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # as assistant.answer does for its retriever
    from assistant.search.relevance import load_model

    env = EvalEnv(args.index)
    if env.stale:
        print(f"attention : l'index est plus ancien que {len(env.stale)} chapitre(s) ({', '.join(env.stale)}) ; "
              "relancez « tuile ingest » pour évaluer le corpus actuel", file=sys.stderr)
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr))
    dev = load_split("dev")
    calibration = calibrate(env, dev, say) if args.calibrate else None
    model = load_model()
    splits = {}
    for name in (("dev", "test") if args.split == "both" else (args.split,)):
        sets = dev if name == "dev" else load_split("test")
        if sets is None:
            splits[name] = None
            continue
        say(f"— jeu {name}")
        splits[name] = evaluate_split(env, sets, say)
    import platform
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {len(os.sched_getaffinity(0))} cœurs, CPU",
        "corpus": {"chapters": len(env.chapters), "chunks": env.chunks, "stale_in_index": env.stale},
        "conditions": {"generator": "composed", "embedder": env.config.embedder, "k": 5,
                       "refusal": {"refuse_below": model.refuse_below, "partial_below": model.partial_below,
                                   "dev_cv": _model_cv(), "dev_by_set": _model_record().get("by_set"),
                                   "dev_sizes": _model_sizes()}},
        "calibration": calibration,
        "splits": splits,
        "targets": {k: f"{op} {v}" for k, (op, v) in TARGETS.items()},
    }


def _model_record() -> dict:
    from assistant.search.relevance import MODEL_FILE
    return yaml.safe_load(MODEL_FILE.read_text(encoding="utf-8")) or {}


def _model_cv() -> dict | None:
    """The cross-validated dev figures recorded with the refusal model."""
    return _model_record().get("cv")


def _model_sizes() -> str:
    m = _model_record()
    return f"{m.get('dev_in_scope')} questions du sujet, {m.get('dev_out_of_scope')} hors sujet"


_LABELS = {"gold_cited": "chapitre attendu cité", "gold_cited_fr": "… questions en français",
           "gold_cited_en": "… questions en anglais", "inscope_refused": "questions du sujet refusées",
           "english_refused": "… dont en anglais", "inscope_partial": "questions du sujet : réponse partielle",
           "outside_refused": "hors sujet refusées", "off_refused": "… sans rapport",
           "near_refused": "… sujet voisin", "trap_refused": "… pièges (noyau, pilote …)",
           "outside_partial": "hors sujet : réponse partielle", "refusal_precision": "précision des refus",
           "followup_accuracy": "questions de suite", "followup_without_history": "… sans l'historique (référence)",
           "verbatim": "phrases citées mot pour mot", "latency_p50_s": "latence p50 (s)",
           "latency_p95_s": "latence p95 (s)"}


def _markdown(result: dict) -> str:
    splits = result["splits"]
    names = [n for n in ("dev", "test") if n in splits]
    title = " et ".join(names) if names else "dev"
    lines = [f"# Évaluation des réponses (générateur composé), {title}", "",
             f"{result['date']} ; {result['machine']} ; corpus de {result['corpus']['chapters']} chapitres "
             f"({result['corpus']['chunks']} passages), embedder {result['conditions']['embedder']}, k = 5.", ""]
    for name in names:
        s = splits[name]
        if s is None:
            lines.append(f"- {name} : jeu absent de `evals/data/`.")
            continue
        c = s["counts"]
        lines.append(f"- {name} : {c['inscope']} questions du sujet (dont {c['english']} en anglais), "
                     f"{c['outside']} hors sujet {c['outside_by_kind']}, {c['followups']} conversations, "
                     f"{c['quotes']} phrases citées.")
    lines += ["", "| mesure | " + " | ".join(names) + " | objectif (test) |",
              "| --- |" + " --- |" * len(names) + " --- |"]
    for key, label in _LABELS.items():
        row = [str(splits[n]["figures"].get(key)) if splits[n] else "—" for n in names]
        goal = f"{TARGETS[key][0].replace('>=', '≥').replace('<=', '≤')} {TARGETS[key][1]}" if key in TARGETS else "—"
        lines.append(f"| {label} | " + " | ".join(row) + f" | {goal} |")
    cv = result["conditions"]["refusal"].get("dev_cv")
    if cv:
        lines += ["", "Le modèle de refus est ajusté sur dev : ses chiffres dev ci-dessus sont ceux des questions "
                      f"d'ajustement. Estimation honnête sur dev, validation croisée à 5 plis : précision des refus "
                      f"{cv['precision']}, hors sujet refusées {cv['recall']}, questions du sujet refusées "
                      f"{cv['inscope_refused']} (dev élargi : {result['conditions']['refusal'].get('dev_sizes', 'voir refusal.yaml')})."]
    by_set = result["conditions"]["refusal"].get("dev_by_set")
    if by_set:
        lines += ["", "En laissant de côté un jeu dev entier (un tour d'écriture) et en le notant avec le modèle "
                      f"ajusté sans lui : précision des refus {by_set['precision']}, hors sujet refusées "
                      f"{by_set['recall']}, questions du sujet refusées {by_set['inscope_refused']} (en anglais "
                      f"{by_set['english_refused']}) ; par jeu laissé de côté : "
                      + " ; ".join(f"{k} {v['inscope_refused']} refusées, précision {v['precision']}"
                                   for k, v in (by_set.get("sets") or {}).items()) + "."]
    if result.get("calibration"):
        cv = result["calibration"]["cv"]
        lines += ["", f"Modèle de refus ajusté sur dev ; validation croisée à {result['calibration']['folds']} plis : "
                      f"précision {cv['precision']}, rappel {cv['recall']}, questions du sujet refusées "
                      f"{cv['inscope_refused']}."]
    lines += ["", "Commande : `tuile eval answers` (ajustement du refus sur dev : `python -m evals.answers --calibrate`).", ""]
    return "\n".join(lines)


def main(argv_or_args=None) -> int:
    if isinstance(argv_or_args, argparse.Namespace):
        args = argv_or_args
    else:
        parser = argparse.ArgumentParser(prog="tuile eval answers", description=__doc__.splitlines()[0])
        add_arguments(parser)
        args = parser.parse_args(argv_or_args)
    for name, default in (("calibrate", False), ("split", "both"), ("index", None), ("out", str(RESULTS)),
                          ("quiet", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    result = run(args)
    from evals.common import write_result

    # a one-split run gets its own file: it does not replace the record of both splits
    tag = "" if args.split == "both" else f"-{args.split}"
    path, _ = write_result("answers", result, _markdown(result), out=Path(args.out), tag=tag)
    print(f"corpus : {result['corpus']['chapters']} chapitres, {result['corpus']['chunks']} passages")
    for name, s in result["splits"].items():
        if s is None:
            print(f"[{name}] jeu absent")
            continue
        print(f"[{name}] " + ", ".join(f"{k} {s['figures'][k]}" for k in TARGETS))
    print(f"résultats : {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
