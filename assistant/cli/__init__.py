"""The ``tuile`` command: a thin dispatcher over the subcommand modules.

    tuile COMMANDE …            (or: python -m assistant.cli COMMANDE …)

Each module listed in ``_COMMAND_MODULES`` (this package's ``index``, ``answer``, ``paths``,
``serve``, and the CLIs of ``sandbox``, ``gpupool`` and ``evals``) exposes
``register(subparsers)``, which adds its subcommands and sets ``func`` on them.
``func(args)`` returns an exit code. Typed errors (``TuileError``) become a one-line French
message and exit code 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from ingest.errors import TuileError

_COMMAND_MODULES = (
    "assistant.cli.index",    # ingest, search
    "assistant.cli.answer",   # ask, chat
    "assistant.cli.paths",    # parcours
    "sandbox.cli",            # kernel …
    "gpupool.cli",            # scheduler, worker, pool …
    "assistant.cli.serve",    # serve
    "evals.cli",              # eval …
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tuile",
        description="Tuile : un assistant pour apprendre la programmation GPU avec son guide.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMANDE")
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:  # a real missing dependency must surface
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except TuileError as err:
        print(f"erreur : {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head & co.
        return 0
    except KeyboardInterrupt:
        print("interrompu.", file=sys.stderr)
        return 130

