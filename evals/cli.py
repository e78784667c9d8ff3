"""``tuile eval …``: run one evaluation and write its dated results under evals/results/."""
from __future__ import annotations

import argparse
import importlib

# Each eval module exposes ``main(args) -> int``.
_EVALS = {
    "retrieval": ("evals.retrieval", "recherche : recall@1, recall@5, MRR (BM25, dense, hybride)"),
    "answers": ("evals.answers", "réponses : citations, verbatim, refus, relances"),
    "paths": ("evals.paths", "parcours : dialogues en texte libre"),
}


def _run(args: argparse.Namespace) -> int:
    module_name, _ = _EVALS[args.which]
    return importlib.import_module(module_name).main(args)


def register(subparsers) -> None:
    p = subparsers.add_parser("eval", help="lancer une évaluation (retrieval, answers, paths)")
    p.add_argument("which", choices=sorted(_EVALS), help="; ".join(f"{k} : {v[1]}" for k, v in _EVALS.items()))
    p.add_argument("--index", help="dossier de l'index")
    p.set_defaults(func=_run)
