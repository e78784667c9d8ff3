"""``tuile scheduler``, ``tuile worker``, ``tuile pool status|run``: the GPU pool from a terminal.

    tuile scheduler [--host 0.0.0.0] [--port 8786]
    tuile worker --scheduler tcp://HOST:8786 [--gpus N] [--listen HOST]
    tuile pool status [--scheduler tcp://HOST:8786]
    tuile pool run FICHIER -e EXERCICE [--scheduler …] [--dtype D] [--no-timing] [--json]

``--scheduler`` defaults to ``TUILE_SCHEDULER``; without either, ``pool run`` runs on
this host (backend ``local``). ``pool run`` prints the queue position while it waits,
the host and GPU that ran the submission, what the user must know (a lost host, a
fallback), then the report; its exit codes are those of ``tuile kernel run``
(0 correct, 1 wrong or too slow, 2 usage error or no host could run it). Standalone on
a GPU host without the rest of Tuile: ``python -m gpupool.cli …``.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _err(text: str) -> int:
    from gpupool.text import fr

    print(fr(f"erreur : {text}"), file=sys.stderr)
    return 2


def _cmd_scheduler(args) -> int:
    from gpupool.pool import start_scheduler

    if not 0 < args.port < 65536:
        return _err(f"port {args.port} invalide ; attendu : un entier entre 1 et 65535")
    return start_scheduler(args.host, args.port)


def _cmd_worker(args) -> int:
    from gpupool.pool import start_worker

    scheduler = args.scheduler or os.environ.get("TUILE_SCHEDULER", "")
    if not scheduler:
        return _err("indiquez le planificateur : --scheduler tcp://HÔTE:8786 (ou TUILE_SCHEDULER)")
    if args.gpus is not None and args.gpus < 1:
        return _err(f"--gpus {args.gpus} invalide ; attendu : un entier positif")
    return start_worker(scheduler, args.gpus, listen=args.listen)


def _cmd_status(args) -> int:
    from gpupool import get_backend
    from gpupool.text import fr

    backend = get_backend(None, scheduler=args.scheduler)
    print(backend.describe())
    if backend.name != "dask":
        return 0
    try:
        workers = backend.workers()
    except Exception:
        return 2
    for w in workers:
        print(fr(f"- {w['name']} : {w['gpus']} GPU, {w['running']} en cours ({w['address']})"))
    return 0


def render_run(run) -> str:
    """Where it ran and what to know, in French; then the sandbox's own rendering."""
    from gpupool.text import fr

    try:
        from sandbox.cli import render
    except ImportError:              # a sandbox without its CLI: the record itself
        def render(report):
            return report.to_json()
    lines = list(run.notices)
    if run.error:
        lines.append(fr(f"Non lancée : {run.error}"))
        return "\n".join(lines)
    tries = " (deuxième essai)" if run.attempts > 1 else ""
    lines.append(fr(f"Exécutée sur : {run.where}{tries} ; attente {run.waited_s:.1f} s".replace(".", ",")))
    lines.append(render(run.report))
    return "\n".join(lines)


def _cmd_run(args) -> int:
    from gpupool import get_backend
    from gpupool.text import fr
    from sandbox import list_exercises
    from sandbox.records import RunOptions

    names = [ex.name for ex in list_exercises()]
    if args.exercise not in names:
        return _err(f"exercice inconnu : « {args.exercise} » ; exercices : {', '.join(names)}")
    try:
        source = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        return _err(f"impossible de lire « {args.file} » : {err}")
    shown = {"last": None}

    def event(kind, value):
        if args.json:
            return
        if kind == "position" and value and value != shown["last"]:
            print(fr(f"en file d'attente : {value} soumission{'s' if value > 1 else ''} avant la vôtre"),
                  file=sys.stderr)
        elif kind == "running":
            print(fr(f"en cours sur {value}"), file=sys.stderr)
        elif kind == "notice":
            print(value, file=sys.stderr)
        if kind == "position":
            shown["last"] = value

    backend = get_backend(None, scheduler=args.scheduler)
    options = RunOptions(dtype=args.dtype, timing=not args.no_timing)
    run = backend.run(source, args.exercise, options, learner=f"cli-{os.getpid()}", on_event=event)
    if run.report is not None and run.report.error_kind == "options":
        return _err(run.report.error)
    print(run.to_json() if args.json else render_run(run))
    if run.report is None:
        return 2
    ok = run.report.correct and run.report.verdict in ("pass", "no_target", "not_timed")
    return 0 if ok else 1


def _add(sub) -> None:
    p = sub.add_parser("scheduler", help="lancer le planificateur Dask du pool de GPU")
    p.add_argument("--host", default="0.0.0.0", help="adresse d'écoute (défaut : toutes)")
    p.add_argument("--port", type=int, default=8786, help="port (défaut : 8786)")
    p.set_defaults(func=_cmd_scheduler)
    p = sub.add_parser("worker", help="mettre les GPU de cet hôte au service d'un pool")
    p.add_argument("--scheduler", metavar="ADRESSE", help="tcp://HÔTE:8786 (défaut : $TUILE_SCHEDULER)")
    p.add_argument("--gpus", type=int, default=None, help="nombre de GPU offerts (défaut : ceux visibles)")
    p.add_argument("--listen", metavar="HÔTE", default=None, help="adresse d'écoute du worker")
    p.set_defaults(func=_cmd_worker)
    pool = sub.add_parser("pool", help="le pool de GPU : état, soumission")
    pool_sub = pool.add_subparsers(dest="pool_command", metavar="SOUS-COMMANDE")
    p = pool_sub.add_parser("status", help="hôtes et GPU du pool")
    p.add_argument("--scheduler", metavar="ADRESSE", default=None)
    p.set_defaults(func=_cmd_status)
    p = pool_sub.add_parser("run", help="soumettre un noyau au pool (ou à cet hôte sans pool)")
    p.add_argument("file", metavar="FICHIER")
    p.add_argument("--exercise", "-e", required=True, metavar="EXERCICE")
    p.add_argument("--scheduler", metavar="ADRESSE", default=None)
    p.add_argument("--dtype", default=None)
    p.add_argument("--no-timing", action="store_true", help="justesse seulement")
    p.add_argument("--json", action="store_true", help="le PoolRun en JSON")
    p.set_defaults(func=_cmd_run)
    pool.set_defaults(func=lambda args: (pool.print_help(), 0)[1])


def register(subparsers) -> None:
    _add(subparsers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpupool.cli", description="Le pool de GPU de Tuile.")
    sub = parser.add_subparsers(dest="command", metavar="COMMANDE")
    _add(sub)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
