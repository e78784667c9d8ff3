"""``tuile parcours``: the reading-path dialogue in the terminal, interactive or from flags."""
from __future__ import annotations

import argparse
import json


def render(display) -> str:
    """Plain-text rendering of one dialogue turn."""
    lines = []
    if display.notice:
        lines.append(display.notice)
    lines.append(display.text)
    if display.kind == "recommendation" and display.recommendation:
        rec = display.recommendation
        for n, step in enumerate(rec["steps"], 1):
            tag = " (à lire d'abord)" if step["before"] else (" (facultatif)" if step["optional"] or step["page_optional"] else "")
            lines.append(f"  {n}. {step['label']}{tag}")
            for ch in step["chapters"]:
                mark = "  – facultatif, déjà acquis" if ch["optional"] else ""
                time = f" ({ch['time_text']})" if ch.get("time_text") else ""
                lines.append(f"     · {ch['title']}{time} — {ch['link']}{mark}")
    elif display.options:
        for n, (_, label) in enumerate(display.options, 1):
            lines.append(f"  {n}. {label}")
    return "\n".join(lines)


_QUIT = {"q", "quitter", "quit", "exit", "sortir"}
INTRO = ("Répondez par un numéro ou en quelques mots\u202f; «\u00a0retour\u00a0» revient en arrière, "
         "«\u00a0recommencer\u00a0» reprend tout, «\u00a0quitter\u00a0» (ou Ctrl-D) s'arrête.")


def _interactive(dialogue) -> int:
    from assistant.paths import DialogueState

    state, display = dialogue.step(DialogueState())
    print(INTRO + "\n")
    while True:
        print(render(display))
        if display.kind == "recommendation":
            return 0
        try:
            text = input("> ").strip()
        except EOFError:
            return 0
        if text.lower() in _QUIT:
            return 0
        if text.isdigit() and display.options and 1 <= int(text) <= len(display.options):
            text = display.options[int(text) - 1][0]
        # An empty line goes to the dialogue too: it answers with a message and keeps everything.
        state, display = dialogue.step(state, text)
        print()


def _run(args: argparse.Namespace) -> int:
    from assistant.paths import DialogueState, PathDialogue

    dialogue = PathDialogue(args.corpus)
    if args.know is None and args.want is None:
        return _interactive(dialogue)
    state = DialogueState()
    state, display = dialogue.step(state)
    inputs = [x for x in (args.know, args.want) if x is not None]
    known = {p.strip() for p in (args.sais or "").split(",") if p.strip()}
    for text in inputs:
        state, display = dialogue.step(state, text)
        if display.kind != "question" or display.notice:
            break
    while display.kind == "prerequisite" and args.sais is not None:
        state, display = dialogue.step(state, "oui" if display.topic[4:] in known else "non")
    if args.json:
        print(json.dumps({"state": state.to_dict(), "kind": display.kind, "topic": display.topic,
                          "text": display.text, "options": display.options, "notice": display.notice,
                          "recommendation": display.recommendation}, ensure_ascii=False, indent=2))
    else:
        print(render(display))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("parcours", help="trouver son parcours de lecture dans le guide")
    p.add_argument("--know", "--sait", dest="know", help="ce que vous savez déjà (numéro 1–5, id ou texte libre)")
    p.add_argument("--want", "--veut", dest="want", help="ce que vous voulez en faire (numéro 1–6, lettre A–F, id ou texte)")
    p.add_argument("--sais", help="prérequis du parcours F que vous maîtrisez, séparés par des virgules : "
                                  "warp,mbarrier,tma,sync")
    p.add_argument("--corpus", help="dossier du corpus")
    p.add_argument("--json", action="store_true", help="sortie JSON (état, affichage, recommandation)")
    p.set_defaults(func=_run)
