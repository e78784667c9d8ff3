"""``tuile eval …``: run one evaluation and write its dated results under evals/results/.

Each eval module exposes ``main(args) -> int``; ``answers`` also has its own options
(``--calibrate`` …), added by ``evals.answers.add_arguments``. Modules are imported when the
eval runs, so building the ``tuile`` parser stays cheap.
"""
from __future__ import annotations

import argparse
import importlib


def _runner(module_name: str):
    def run(args: argparse.Namespace) -> int:
        return importlib.import_module(module_name).main(args)
    return run


def register(subparsers) -> None:
    p = subparsers.add_parser("eval", help="lancer une évaluation (retrieval, answers, paths)")
    which = p.add_subparsers(dest="which", metavar="ÉVALUATION", required=True)
    r = which.add_parser("retrieval", help="recherche : recall@1, recall@5, MRR par chapitre (BM25, dense, hybride), dev et test")
    r.add_argument("--index", help="dossier de l'index")
    r.add_argument("--tune", action="store_true", help="régler la fusion sur le jeu dev (validation croisée), sans rien écrire")
    r.add_argument("--split", choices=("dev", "test", "both"), default="both",
                   help="jeu évalué (défaut : dev et test côte à côte ; les résultats ne sont écrits que pour les deux)")
    r.set_defaults(func=_runner("evals.retrieval"))
    from evals.answers import add_arguments   # stdlib + yaml only at import

    a = which.add_parser("answers", help="réponses : citations, verbatim, refus, questions de suite")
    add_arguments(a)
    a.set_defaults(func=_runner("evals.answers"))
    w = which.add_parser("paths", help="parcours : dialogues en texte libre, jeu principal et jeu séparé")
    w.add_argument("--dev", action="store_true",
                   help="dev seulement (pour régler les règles ; le test ne se lance qu'une fois, à la fin)")
    w.set_defaults(func=_runner("evals.paths"))
