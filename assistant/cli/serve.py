"""``tuile serve``: build or update the index (with a progress bar), then serve the web app.

    tuile serve [--host 127.0.0.1] [--port 7860] [--share-nothing] [--scheduler tcp://HOST:8786]

Ingestion is incremental (a few seconds when nothing changed), so the index always
matches the guide on disk. Gradio's analytics are off and the page fetches nothing from
a CDN, so the app works offline. ``--share-nothing`` makes that a promise: no Gradio share
link, no telemetry, model hubs offline, and answers composed from the guide even if a
remote LLM is configured (nothing of a question leaves the machine).
"""
from __future__ import annotations

import argparse
import os
import sys

_OFFLINE_ENV = {
    "GRADIO_ANALYTICS_ENABLED": "False",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ANONYMIZED_TELEMETRY": "False",     # Chroma
}
_NOTHING_LEAVES = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def register(subparsers) -> None:
    p = subparsers.add_parser("serve", help="lancer l'interface web (construit l'index au premier lancement)",
                              description="Construit ou met à jour l'index du guide, puis sert l'interface web.")
    p.add_argument("--host", default="127.0.0.1", help="adresse d'écoute (défaut : 127.0.0.1, cette machine seulement)")
    p.add_argument("--port", type=int, default=7860, help="port (défaut : 7860)")
    p.add_argument("--share-nothing", action="store_true",
                   help="rien ne sort de la machine : ni lien de partage, ni télémétrie, ni appel à un "
                        "modèle distant (réponses composées du guide)")
    p.add_argument("--index", metavar="DIR", help="dossier de l'index (défaut : $TUILE_INDEX)")
    p.add_argument("--corpus", metavar="DIR", help="dossier du guide (défaut : corpus/ ou $TUILE_CORPUS)")
    p.add_argument("--llm", metavar="SPEC", help="générateur des réponses : composed, composed:rerank, openai:<modèle>, ollama:<modèle> "
                   "(défaut : $TUILE_LLM, sinon composed)")
    p.add_argument("--scheduler", metavar="ADRESSE",
                   help="pool de GPU : planificateur Dask tcp://HÔTE:8786 où partent les noyaux "
                        "(défaut : $TUILE_SCHEDULER ; sans lui, sur cet hôte)")
    p.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    for key, value in _OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    if args.share_nothing:
        os.environ.update(_NOTHING_LEAVES)
    if not 0 < args.port < 65536:
        print(f"erreur : port {args.port} invalide ; attendu : un entier entre 1 et 65535", file=sys.stderr)
        return 2

    from assistant.cli.index import ProgressBar
    from ingest.config import load_config
    from ingest.pipeline import ingest

    config = load_config(corpus_dir=args.corpus, index_dir=args.index,
                         llm="composed" if args.share_nothing else args.llm, scheduler=args.scheduler)
    print(f"Index du guide : {config.index_dir}", file=sys.stderr)
    result = ingest(config, progress=ProgressBar())
    for err in result.errors:
        print(f"chapitre ignoré : {err}", file=sys.stderr)
    print(result.summary.line(), file=sys.stderr)

    from assistant.generators import get_generator
    from assistant.ui.app import create_app, launch

    generator = get_generator(None, config)   # an unknown --llm fails here, before serving
    # Warmed after the server is up: on 2 cores, loading the embedder and the index
    # (~1 s) while the page loads only delays the page.
    app = create_app(config, generator=generator, warm=False)
    try:
        launch(app, host=args.host, port=args.port, block=False)
    except OSError as err:
        print(f"erreur : impossible d'écouter sur {args.host}:{args.port} ({err}) ; "
              "essayez un autre port avec --port", file=sys.stderr)
        return 2
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"Tuile est servi sur http://{shown}:{args.port}/  (Ctrl-C pour arrêter)", file=sys.stderr)
    if config.scheduler:
        print(f"Noyaux : {app.tuile_services.kernel_backend().describe()}", file=sys.stderr)
    app.tuile_services.warm()
    try:
        app.block_thread()
    finally:
        app.close()
    return 0
