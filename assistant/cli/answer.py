"""``tuile ask`` and ``tuile chat``: thin adapters over ``assistant.answer.answer``.

    tuile ask "Pourquoi ma transposition plafonne à 25 % ?" [--json] [--llm SPEC]
    tuile chat [--llm SPEC] [--save conversation.json] [--resume conversation.json]

The answer is printed as it is produced; notices (LLM replaced by the composed answer,
English question) go to stderr. ``--json`` prints the ``Answer`` record as it is. Exit
codes: 0 answered, refused or routed to the reading paths; 1 the question was not usable.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ingest.config import load_config
from ingest.errors import TuileError

# The answer pipeline (LangChain, Chroma, the embedder) is imported by the handlers, not
# here: the ``tuile`` dispatcher builds every subcommand's parser, also on a GPU host that
# only has torch and triton and runs ``tuile kernel``.


def register(subparsers) -> None:
    llm_help = ("générateur : composed, composed:rerank (tête reclassée par le sens), openai:<modèle>, "
                "ollama:<modèle> (défaut : $TUILE_LLM, sinon composed, la réponse composée du guide)")
    ask = subparsers.add_parser("ask", help="poser une question au guide",
                                description="Répond à une question à partir du guide, en citant ses sections.")
    ask.add_argument("question", help="la question, entre guillemets")
    ask.add_argument("--json", action="store_true", help="imprimer l'enregistrement Answer en JSON")
    ask.add_argument("--llm", metavar="SPEC", help=llm_help)
    ask.add_argument("--index", metavar="DIR", help="dossier de l'index (défaut : $TUILE_INDEX)")
    ask.set_defaults(func=_ask)

    chat = subparsers.add_parser("chat", help="converser avec le guide dans le terminal",
                                 description="Une conversation : les questions de suite (« et avec des "
                                             "tuiles de 64 ? ») se comprennent avec l'historique.")
    chat.add_argument("--llm", metavar="SPEC", help=llm_help)
    chat.add_argument("--index", metavar="DIR", help="dossier de l'index (défaut : $TUILE_INDEX)")
    chat.add_argument("--save", metavar="FICHIER", help="enregistrer la conversation (JSON) après chaque réponse")
    chat.add_argument("--resume", metavar="FICHIER", help="reprendre une conversation enregistrée")
    chat.set_defaults(func=_chat)


def _setup(args):
    from assistant.generators import get_generator

    config = load_config(llm=args.llm, index_dir=args.index)
    return config, get_generator(None, config)   # an unknown --llm fails here, before any question


def _render(stream):
    from assistant.answer_records import Answer

    out, err = sys.stdout, sys.stderr
    final = None
    for item in stream:
        if isinstance(item, Answer):
            final = item
        elif item.kind == "text":
            out.write(item.text)
            out.flush()
        else:
            print(f"note : {item.text}", file=err)
    if not final.text.endswith("\n"):
        out.write("\n")
    return final


def _ask(args) -> int:
    from assistant.answer import answer

    config, generator = _setup(args)
    stream = answer(args.question, None, generator, config=config)
    if args.json:
        final = list(stream)[-1]
        print(final.to_json(indent=2))
    else:
        final = _render(stream)
    return 1 if final.kind == "invalid" else 0


def _load(path: str | None):
    from assistant.answer_records import Conversation

    if not path:
        return Conversation()
    try:
        return Conversation.from_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, KeyError) as err:
        raise TuileError(f"impossible de reprendre la conversation « {path} » : {err}") from None


def _path_dialogue(config) -> None:
    """Hand a reading-path question to the dialogue of ``assistant.paths``, then come back."""
    from assistant.cli.paths import render
    from assistant.paths import DialogueState, PathDialogue

    dialogue = PathDialogue(config.corpus_dir)
    state, display = dialogue.step(DialogueState())
    print("\n(dialogue des parcours : un numéro ou quelques mots ; une ligne vide revient aux questions)")
    while True:
        print(render(display))
        if display.kind == "recommendation":
            return
        try:
            text = input("parcours › ").strip()
        except EOFError:
            return
        if not text:
            return
        if text.isdigit() and display.options and 1 <= int(text) <= len(display.options):
            text = display.options[int(text) - 1][0]
        state, display = dialogue.step(state, text)


def _chat(args) -> int:
    from assistant.answer import answer
    from assistant.answer_records import Conversation

    config, generator = _setup(args)
    conversation = _load(args.resume)
    print("Tuile — posez vos questions sur la programmation GPU. "
          "/nouveau pour repartir de zéro, /quitter (ou Ctrl-D) pour sortir.")
    while True:
        try:
            line = input("\nvous › ")
        except EOFError:
            print()
            return 0
        command = line.strip().lower()
        if command in ("/quitter", "/quit", "/exit"):
            return 0
        if command in ("/nouveau", "/reset"):
            conversation = Conversation()
            print("(nouvelle conversation)")
            continue
        if not command:
            continue
        print("tuile › ", end="", flush=True)
        final = _render(answer(line, conversation, generator, config=config))
        conversation = conversation.with_answer(final)
        if final.kind == "reading_path":
            _path_dialogue(config)
        if args.save:
            Path(args.save).write_text(conversation.to_json(indent=2), encoding="utf-8")
