"""Leave-one-writing-round-out check of the follow-up fusion weights.

``python -m evals.followups_cv [--index DIR]`` scores the two-turn conversations of every dev
file ``answers_followups*.yaml`` (one writing round each) under a small grid of settings of
``assistant.search.followup`` (``WEIGHTS``, ``DECAY``). For each file left out, the setting
with the most gold chapters cited on the other files is picked (ties go to the earlier
setting, the first being the shipped one) and scored on the left-out file: that figure, not the
pooled one, says whether a weight generalises. Results: ``evals/results/followups-cv-<date>``
(JSON and Markdown). About 45 s a setting on 2 CPU cores (333 conversations; first answers
are computed once, they do not depend on the weights).
Limits: only the settings of the grid are tried; the resolution rules themselves are not
refitted per fold.
"""
from __future__ import annotations

import argparse
from contextlib import contextmanager

from assistant.answer_records import Conversation
from assistant.search import followup
from evals.answers import EvalEnv
from evals.common import load_set, split_files, write_result

# (own, joined, previous chapters' bonus, own words inside them, DECAY); the first is shipped
GRID = ((0.5, 1.0, 0.3, 0.5, 1.0), (0.5, 1.0, 0.0, 0.5, 1.0), (0.5, 1.0, 0.15, 0.5, 1.0),
        (0.8, 1.0, 0.3, 0.5, 1.0), (1.0, 1.0, 0.3, 0.5, 1.0), (0.8, 1.0, 0.15, 0.5, 1.0),
        (0.5, 1.0, 0.3, 0.5, 0.5), (0.8, 1.0, 0.3, 0.5, 0.5), (0.5, 1.0, 0.3, 0.25, 1.0),
        (0.8, 1.0, 0.3, 0.25, 1.0), (0.3, 1.0, 0.3, 0.5, 1.0), (1.0, 1.0, 0.15, 0.5, 0.5))


@contextmanager
def _setting(values):
    # the fusion reads its module constants at call time; restored whatever happens
    saved = followup.WEIGHTS, followup.DECAY
    followup.WEIGHTS, followup.DECAY = tuple(values[:4]), values[4]
    try:
        yield
    finally:
        followup.WEIGHTS, followup.DECAY = saved


def leave_one_out(scores: dict[tuple, dict[str, int]], sizes: dict[str, int]) -> dict[str, dict]:
    """For each file: the setting picked on the other files and its left-out score."""
    order = list(scores)
    out = {}
    for name in sizes:
        best = max(order, key=lambda s: (sum(v for f, v in scores[s].items() if f != name), -order.index(s)))
        out[name] = {"picked": list(best), "left_out": scores[best][name], "of": sizes[name],
                     "shipped": scores[order[0]][name]}
    return out


def run(index: str | None = None, say=print) -> dict:
    env = EvalEnv(index)
    files = split_files("answers_followups", "dev")
    convs = {f: [c for c in load_set(f)["conversations"] if set(c["gold"]) & env.present] for f in files}
    firsts = {c["first"]: env.ask(c["first"])[0] for f in files for c in convs[f]}
    scores: dict[tuple, dict[str, int]] = {}
    for values in GRID:
        with _setting(values):
            scores[values] = {}
            for f in files:
                ok = 0
                for c in convs[f]:
                    second, _ = env.ask(c["second"], Conversation().with_answer(firsts[c["first"]]))
                    ok += second.kind == "answer" and bool(set(second.chapter_ids) & set(c["gold"]))
                scores[values][f] = ok
        say(f"{values}: {sum(scores[values].values())} / {sum(len(v) for v in convs.values())}")
    folds = leave_one_out(scores, {f: len(convs[f]) for f in files})
    lines = ["# Follow-up weights, one writing round left out", "",
             "| left out | picked on the others | left-out score | shipped weights |", "| --- | --- | --- | --- |"]
    lines += [f"| {f} | {r['picked']} | {r['left_out']}/{r['of']} | {r['shipped']}/{r['of']} |" for f, r in folds.items()]
    payload = {"grid": [{"setting": list(s), "scores": v} for s, v in scores.items()], "folds": folds}
    write_result("followups-cv", payload, "\n".join(lines) + "\n")
    return payload


def main() -> None:
    parser = argparse.ArgumentParser(description="poids des questions de suite, un jeu laissé de côté à la fois")
    parser.add_argument("--index", help="dossier de l'index (défaut : celui de TUILE_HOME)")
    args = parser.parse_args()
    for name, fold in run(args.index)["folds"].items():
        print(f"{name}: {fold['left_out']}/{fold['of']} avec {fold['picked']}")


if __name__ == "__main__":
    main()
