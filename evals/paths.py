"""``tuile eval paths``: free-text reading-path dialogues against their expected outcome.

A dialogue passes when its last turn shows the expected recommendation (path, level, goal
and, for path F, the missing prerequisites), or the expected clarifying question and no
recommendation. Ambiguous and contradictory answers must end on a clarification: a
recommendation there counts as "confident despite ambiguity" and is reported apart.
"""
from __future__ import annotations

import argparse
from collections import Counter

from assistant.paths import DialogueState, PathDialogue
from evals.common import load_set, write_result


def run_dialogue(dialogue: PathDialogue, turns: list[str]):
    state, display = dialogue.step(DialogueState())
    for text in turns:
        state, display = dialogue.step(state, text)
    return state, display


def judge(display, expect: dict) -> bool:
    if "clarify" in expect:
        stage_options = {"level": {o["id"] for o in _D.levels}, "goal": {o["id"] for o in _D.goals}}
        # A clarification offers the likeliest options; when nothing matched, the question is
        # asked again with a notice. Either way the dialogue stays at that stage.
        reasked = display.kind == "question" and bool(display.notice)
        return (display.kind == "clarification" or reasked) and \
            {v for v, _ in display.options} <= stage_options[expect["clarify"]]
    rec = display.recommendation
    if display.kind != "recommendation" or rec is None:
        return False
    ok = rec["path"] == expect["path"] and rec["level"] == expect["level"] and rec["goal"] == expect["goal"]
    if "missing" in expect:
        ok = ok and rec["missing_prerequisites"] == expect["missing"]
    return ok


_D: PathDialogue


def evaluate(dialogue: PathDialogue, items: list[dict]) -> dict:
    global _D
    _D = dialogue
    passed, by_style, total_style, confident_ambiguous, failures = 0, Counter(), Counter(), 0, []
    for item in items:
        _, display = run_dialogue(dialogue, item["turns"])
        ok = judge(display, item["expect"])
        passed += ok
        total_style[item["style"]] += 1
        by_style[item["style"]] += ok
        if "clarify" in item["expect"] and display.kind == "recommendation":
            confident_ambiguous += 1
        if not ok:
            failures.append({"turns": item["turns"], "expect": item["expect"], "got": display.kind,
                             "path": (display.recommendation or {}).get("path"), "text": display.text[:120]})
    return {"dialogues": len(items), "accuracy": passed / len(items),
            "by_style": {s: f"{by_style[s]}/{n}" for s, n in sorted(total_style.items())},
            "confident_despite_ambiguity": confident_ambiguous, "failures": failures}


def main(args: argparse.Namespace | None = None) -> int:
    dialogue = PathDialogue()
    heldout = evaluate(dialogue, load_set("paths_heldout"))
    result = evaluate(dialogue, load_set("paths"))
    result["heldout"] = {k: heldout[k] for k in ("dialogues", "accuracy", "confident_despite_ambiguity", "failures")}
    rows = "\n".join(f"| {s} | {v} |" for s, v in result["by_style"].items())
    md = (f"# Évaluation des parcours\n\n{result['dialogues']} dialogues en texte libre ; exactitude "
          f"{result['accuracy']:.3f} ; recommandations sûres malgré une réponse ambiguë : "
          f"{result['confident_despite_ambiguity']}.\n\n| style | réussis |\n| --- | --- |\n{rows}\n\n"
          f"Jeu séparé (`paths_heldout.yaml`, écrit sans voir les motifs) : {heldout['dialogues']} dialogues, "
          f"exactitude {heldout['accuracy']:.3f}, recommandations sûres malgré l'ambiguïté : "
          f"{heldout['confident_despite_ambiguity']}.\n\nCommande : `tuile eval paths`.\n")
    if result["failures"]:
        md += "\n## Échecs\n\n" + "\n".join(f"- {f['turns']} → {f['got']} {f['path'] or ''} "
                                            f"(attendu {f['expect']})" for f in result["failures"]) + "\n"
    jpath, _ = write_result("paths", result, md)
    print(md)
    print(f"résultats écrits dans {jpath}")
    return 0
