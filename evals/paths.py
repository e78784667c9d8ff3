"""``tuile eval paths``: free-text reading-path dialogues against their expected outcome, dev and test.

Sets (``evals/data``): DEV = ``paths.yaml``, ``paths_heldout.yaml``, ``paths_dev_extra.yaml``,
``paths_dev2.yaml`` (a second independent writer, hard cases), ``paths_dev3.yaml``,
``paths_dev4.yaml``, ``paths_dev5.yaml`` (the earlier test splits: each, once reported, was
tuned on, so it moved to dev; ``evals.common.split_files`` finds them) and ``paths_dev_cases.yaml``
(the rules of ``corpus/parcours.yaml`` were tuned on them); TEST = ``paths_test.yaml``,
written by someone who never saw the rules, before the tuning round it reports on. Only the test
figures are reported for it, never its dialogues; ``--dev`` runs the dev side alone (for
tuning: the test side is run once, to report).

Each dialogue gives the user's turns (the dialogue starts with question 1); when the dialogue
asks a path-F prerequisite after the turns run out, the answer comes from the dialogue's
``prereq`` map (``{warp: "oui", tma: "jamais vu", …}``). Measures:
- level recognised: the level settled at the end is the expected one (clear dialogues);
- path without clarification: the expected path is recommended and no clarifying question
  was needed on the way (clear dialogues; the "clarified" style, which answers one, apart);
- clarification when unclear: ambiguous, contradictory and nonsense answers end on a
  clarifying question (or the question asked again with "je n'ai pas compris") at the
  expected stage, never on a recommendation;
- missing F prerequisites found: the recommendation's missing prerequisites are the expected ones;
- confident and contradicting: a recommendation where a clarification was expected, or one
  that takes as known a prerequisite the user does not know (goal: 0);
- asked though answered: prerequisite questions asked although the user's own words had
  already named that prerequisite (a keyword check on the earlier turns).
"""
from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from assistant.paths import DialogueState, PathDialogue
from evals.common import DATA, load_set, split_files, write_result

DEV_SETS = split_files("paths", "dev")
TEST_SETS = split_files("paths", "test")
GOALS = {"level_recognised": 0.90, "path_without_clarification": 0.90, "clarification_when_unclear": 0.90,
         "missing_found": 0.90, "confident_contradicting": 0}
LABELS = {"level_recognised": "niveau reconnu", "path_without_clarification": "parcours recommandé sans précision",
          "clarification_when_unclear": "précision demandée si ambigu ou contradictoire",
          "missing_found": "prérequis manquants du parcours F trouvés",
          "confident_contradicting": "recommandations sûres qui contredisent l'utilisateur",
          "asked_though_answered": "prérequis demandés alors que la réponse les disait déjà"}
_NAMED = {"warp": re.compile(r"\bwarps?\b", re.I), "mbarrier": re.compile(r"barri", re.I),
          "tma": re.compile(r"\btma\b", re.I), "sync": re.compile(r"synchroni[sz]e|\bsync", re.I)}
_MAX_STEPS = 12


def run_dialogue(dialogue: PathDialogue, turns: list[str], prereq: dict | None = None):
    """Play the turns, then answer asked prerequisites from ``prereq``; return the trace."""
    state, display = dialogue.step(DialogueState())
    kinds, asked = [], []
    said: list[str] = []
    for text in turns:
        if display.kind == "prerequisite":
            asked.append((display.topic[4:], " ".join(said)))
        said.append(str(text))
        state, display = dialogue.step(state, text)
        kinds.append(display.kind)
    steps = 0
    while display.kind == "prerequisite" and prereq and steps < _MAX_STEPS:
        pid = display.topic[4:]
        if pid not in prereq:
            break
        asked.append((pid, " ".join(said)))
        state, display = dialogue.step(state, str(prereq[pid]))
        kinds.append(display.kind)
        steps += 1
    return state, display, kinds, asked


def judge(display, expect: dict) -> bool:
    if "clarify" in expect:
        return _clarified(display, expect["clarify"])
    rec = display.recommendation
    if display.kind != "recommendation" or rec is None:
        return False
    ok = rec["path"] == expect["path"] and rec["level"] == expect["level"] and rec["goal"] == expect["goal"]
    if "missing" in expect:
        ok = ok and sorted(rec["missing_prerequisites"]) == sorted(expect["missing"])
    return ok


def _clarified(display, stage: str) -> bool:
    # A clarification offers the likeliest options; when nothing was understood, the question
    # is asked again with a notice. Either way the dialogue stays at that stage.
    reasked = display.kind == "question" and bool(display.notice)
    return (display.kind == "clarification" or reasked) and display.topic == stage


def evaluate(dialogue: PathDialogue, items: list[dict], keep_failures: bool = True) -> dict:
    passed, by_style, total_style, failures = 0, Counter(), Counter(), []
    counts = {k: [0, 0] for k in ("level_recognised", "path_without_clarification", "clarification_when_unclear",
                                  "missing_found")}
    contradicting = asked_answered = 0
    for item in items:
        expect = item["expect"]
        state, display, kinds, asked = run_dialogue(dialogue, item["turns"], item.get("prereq"))
        rec = display.recommendation if display.kind == "recommendation" else None
        ok = judge(display, expect)
        passed += ok
        total_style[item["style"]] += 1
        by_style[item["style"]] += ok
        if "clarify" in expect:
            counts["clarification_when_unclear"][1] += 1
            counts["clarification_when_unclear"][0] += _clarified(display, expect["clarify"])
            contradicting += rec is not None
        else:
            counts["level_recognised"][1] += 1
            counts["level_recognised"][0] += state.get("level") == expect["level"]
            if item["style"] != "clarified":
                counts["path_without_clarification"][1] += 1
                counts["path_without_clarification"][0] += bool(
                    rec and rec["path"] == expect["path"] and "clarification" not in kinds)
            if "missing" in expect:
                counts["missing_found"][1] += 1
                got = sorted(rec["missing_prerequisites"]) if rec else None
                counts["missing_found"][0] += got == sorted(expect["missing"])
                if rec and rec["path"] == "F" and set(expect["missing"]) - set(rec["missing_prerequisites"]):
                    contradicting += 1
        asked_answered += sum(1 for pid, before in asked if _NAMED[pid].search(before))
        if not ok and keep_failures:
            failures.append({"id": item.get("id", ""), "turns": item["turns"], "expect": expect, "got": display.kind,
                             "topic": display.topic, "path": (rec or {}).get("path"),
                             "level": state.get("level"), "missing": (rec or {}).get("missing_prerequisites"),
                             "text": display.text[:120]})
    measures = {k: (n / d if d else None) for k, (n, d) in counts.items()}
    measures["confident_contradicting"] = contradicting
    measures["asked_though_answered"] = asked_answered
    return {"dialogues": len(items), "accuracy": passed / len(items) if items else 0.0,
            "measures": measures, "support": {k: d for k, (_, d) in counts.items()},
            "by_style": {s: f"{by_style[s]}/{n}" for s, n in sorted(total_style.items())},
            "confident_despite_ambiguity": contradicting, "failures": failures}


def _load(names: tuple[str, ...], data: Path = DATA) -> tuple[list[dict], list[str]]:
    items, used = [], []
    for name in names:
        if (data / f"{name}.yaml").exists():
            items += load_set(name)
            used.append(f"{name}.yaml")
    return items, used


def _cell(value, support=None) -> str:
    if value is None:
        return "—"
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}" + (f" ({support})" if support is not None else "")


def main(args: argparse.Namespace | None = None) -> int:
    dialogue = PathDialogue()
    dev_items, dev_files = _load(DEV_SETS)
    # ``--dev``: tuning runs never touch the test split.
    test_items, test_files = ([], []) if getattr(args, "dev", False) else _load(TEST_SETS)
    dev = evaluate(dialogue, dev_items)
    test = evaluate(dialogue, test_items, keep_failures=False) if test_items else None
    rows = []
    for key, label in LABELS.items():
        goal = GOALS.get(key)
        goal_txt = "—" if goal is None else (f"≥ {goal:.2f}" if isinstance(goal, float) else str(goal))
        t = _cell(test["measures"][key], test["support"].get(key)) if test else "pas de jeu de test"
        rows.append(f"| {label} | {_cell(dev['measures'][key], dev['support'].get(key))} | {t} | {goal_txt} |")
    md = (f"# Évaluation des parcours\n\nDEV ({', '.join(dev_files)}, règles réglées dessus) : "
          f"{dev['dialogues']} dialogues. TEST ({', '.join(test_files) or 'absent'}, écrit sans voir les règles, "
          f"jamais utilisé pour les régler) : {test['dialogues'] if test else 0} dialogues. Lecture hors ligne, "
          "sans LLM.\n\n| mesure | dev (effectif) | test (effectif) | objectif |\n| --- | --- | --- | --- |\n"
          + "\n".join(rows) + "\n\n"
          f"Dialogues entièrement réussis : dev {dev['accuracy']:.3f}"
          + (f", test {test['accuracy']:.3f}" if test else "") + ".\n\n"
          "| style | dev | test |\n| --- | --- | --- |\n"
          + "\n".join(f"| {st} | {dev['by_style'].get(st, '—')} | {(test or {}).get('by_style', {}).get(st, '—')} |"
                      for st in sorted(set(dev["by_style"]) | set((test or {}).get("by_style", {}))))
          + "\n\nCommande : `tuile eval paths`.\n")
    if dev["failures"]:
        md += "\n## Échecs sur dev\n\n" + "\n".join(
            f"- {f['id']} {f['turns']} → {f['got']} {f['topic']} {f['path'] or ''} {f['level'] or ''} "
            f"{f['missing'] if f['missing'] is not None else ''} (attendu {f['expect']})" for f in dev["failures"]) + "\n"
    result = {"dev": {"files": dev_files, **dev}, "test": ({"files": test_files, **test} if test else None),
              "goals": GOALS}
    jpath, _ = write_result("paths", result, md, tag="-dev" if getattr(args, "dev", False) else "")
    print(md)
    print(f"résultats écrits dans {jpath}")
    return 0
