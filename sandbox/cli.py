"""``tuile kernel …``: list the exercises, print a template, run a submission.

Two ways in, the same commands: ``register(subparsers)`` adds ``kernel`` to the ``tuile``
dispatcher (assistant/cli/); ``python -m sandbox.cli …`` runs standalone on a GPU host
that has only torch and triton.

    tuile kernel exercises
    tuile kernel template transposition [--reference | --naive] > ma_transposition.py
    tuile kernel run ma_transposition.py --exercise transposition [--dtype float16] [--json]

Exit codes of ``run``: 0 the submission is correct (and meets the exercise's goal when it
has one and was timed), 1 it is wrong, refused or too slow, 2 a usage error (unknown
exercise, bad dtype, unreadable file). Messages are in French.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sandbox.french import error_label, fr_number, fr_typo


def _fr(v: float | None, digits: int = 1) -> str:
    return fr_number(v, digits)


def _cmd_exercises(args) -> int:
    from sandbox.exercises import list_exercises

    for ex in list_exercises():
        goal = (f"objectif > {_fr(ex.threshold_pct, 0)} % de la crête"
                if ex.threshold_pct else "sans objectif de débit")
        print(fr_typo(f"{ex.name:<14} {ex.title} — {ex.signature} ; types : "
                      f"{', '.join(ex.dtypes)} ; {goal}"))
        print(fr_typo(f"{'':<14} {ex.summary}"))
    return 0


def _cmd_template(args) -> int:
    from sandbox.exercises import UnknownExercise, get_exercise

    try:
        ex = get_exercise(args.name)
    except UnknownExercise as err:
        print(fr_typo(f"erreur : {err}"), file=sys.stderr)
        return 2
    kind = "reference" if args.reference else "naive" if args.naive else "template"
    sys.stdout.write(ex.source(kind))
    return 0


def render(report) -> str:
    """The report in French, for a terminal; ``--json`` prints the record itself."""
    from sandbox.exercises._check import fmt_int, fmt_shape

    r = report
    lines = [f"Exercice : {r.exercise} ({r.dtype or '?'}) — "
             + (f"GPU {r.device_name}" if r.mode == "gpu" else
                "interpréteur Triton sur CPU (justesse seulement)")]
    if r.error_kind:
        where = f" [ligne {r.error_line}]" if r.error_line else ""
        lines.append(fr_typo(f"Refusé ({error_label(r.error_kind)}){where} : {r.error}"))
        text = fr_typo("\n".join(lines))
        if r.error_kind in ("crashed", "internal") and r.stderr_tail:
            # the program's own output, kept as it was written
            text += fr_typo("\nFin de la sortie d'erreur :\n") + r.stderr_tail[-1500:]
        return text
    shapes = ", ".join(fmt_shape(s) for s in r.shapes_checked)
    lines.append(f"Justesse : juste (formes : {shapes} ; types : {', '.join(r.dtypes_checked)})")
    if r.median_us is not None:
        lines.append(f"Temps ({fmt_shape(r.timing_shape)}) : médiane {_fr(r.median_us)} µs "
                     f"(p10 {_fr(r.p10_us)}, p90 {_fr(r.p90_us)} ; {_fr(r.repetitions, 0)} répétitions)")
        lines.append(f"Octets comptés : {fmt_int(r.bytes_counted)} ({r.bytes_note})")
        lines.append(f"Débit effectif : {_fr(r.gbps, 0)} Go/s"
                     + (f" ; {_fr(r.tflops, 1)} TFLOP/s" if r.tflops else ""))
        lines.append(f"Crête de la carte : {_fr(r.peak_gbps_card, 0)} Go/s (lue sur la carte) ; "
                     f"fiche technique : {_fr(r.peak_gbps_datasheet, 0)} Go/s")
        lines.append(f"Plafond de copie mesuré dans la même exécution : "
                     f"{_fr(r.copy_ceiling_gbps, 0)} Go/s")
        lines.append(f"Soit {_fr(r.pct_of_peak)} % de la crête (source : {r.peak_source}) et "
                     f"{_fr(r.pct_of_copy_ceiling)} % du plafond de copie")
    lines.append(f"Verdict : {r.verdict_text}")
    if r.profile is not None and not r.profile.get("available", True):
        lines.append(f"Profileur : indisponible ({r.profile.get('reason', '')})")
    for item in r.diagnosis or []:
        links = ", ".join(item.get("links") or [])
        lines.append(f"- [{item.get('severity', '')}] {item.get('title', '')} : "
                     f"{item.get('detail', '')}" + (f" (voir {links})" if links else ""))
    return fr_typo("\n".join(lines))


def _cmd_run(args) -> int:
    from sandbox.records import KernelReport, RunOptions
    from sandbox.runner import run_submission
    from sandbox.validate import USAGE_KINDS, validate_request

    try:
        source = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(fr_typo(f"erreur : impossible de lire « {args.file} » : {err}"), file=sys.stderr)
        return 2
    problems = validate_request(source, args.exercise, args.dtype, mode=args.mode)
    usage = [p for p in problems if p.kind in USAGE_KINDS]
    for p in usage:
        print(fr_typo(f"erreur : {p.message}"), file=sys.stderr)
    if usage:
        return 2
    from sandbox.exercises import get_exercise

    ex = get_exercise(args.exercise)
    if problems:   # the submission's own fault (syntax): a report, as a run would give
        p = problems[0]
        report = KernelReport(exercise=ex.name, dtype=args.dtype or ex.dtypes[0],
                              error_kind=p.kind, error=p.message, error_line=p.line,
                              verdict="error", verdict_text=p.message)
        print(report.to_json() if args.json else render(report))
        return 1

    def position(n: int) -> None:
        if n and not args.json:
            print(fr_typo(f"en file d'attente pour le GPU : {fr_number(n, 0)} soumission(s) "
                          "avant la vôtre"),
                  file=sys.stderr)

    options = RunOptions(dtype=args.dtype, mode=args.mode, timing=not args.no_timing,
                         on_position=position, profile=args.profile)
    report = run_submission(source, ex.name, options)
    if report.error_kind == "options":
        print(fr_typo(f"erreur : {report.error}"), file=sys.stderr)
        return 2
    print(report.to_json() if args.json else render(report))
    return 0 if report.correct and report.verdict in ("pass", "no_target", "not_timed") else 1


def _add_commands(kernel_sub) -> None:
    p = kernel_sub.add_parser("exercises", help="liste des exercices")
    p.set_defaults(kernel_func=_cmd_exercises)
    p = kernel_sub.add_parser("template", help="affiche le squelette d'un exercice (à compléter)")
    p.add_argument("name", metavar="EXERCICE")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--reference", action="store_true", help="la solution de référence")
    which.add_argument("--naive", action="store_true", help="la solution naïve")
    p.set_defaults(kernel_func=_cmd_template)
    p = kernel_sub.add_parser("run", help="vérifie, chronomètre et compare une soumission")
    p.add_argument("file", metavar="FICHIER", help="le module Python de la soumission")
    p.add_argument("--exercise", "-e", required=True, metavar="EXERCICE")
    p.add_argument("--dtype", default=None, help="float32, float16 ou bfloat16 (selon l'exercice)")
    p.add_argument("--mode", choices=("auto", "gpu", "interpreter"), default="auto",
                   help="auto : GPU s'il y en a un, sinon l'interpréteur Triton sur CPU")
    p.add_argument("--no-timing", action="store_true", help="justesse seulement")
    p.add_argument("--profile", action="store_true",
                   help="sur GPU : un passage de Nsight Compute et un diagnostic")
    p.add_argument("--json", action="store_true", help="le rapport en JSON")
    p.set_defaults(kernel_func=_cmd_run)


def register(subparsers) -> None:
    kernel = subparsers.add_parser("kernel", help="bac à sable de noyaux Triton : exercices, "
                                   "vérification, mesure du débit")
    kernel_sub = kernel.add_subparsers(dest="kernel_command", metavar="SOUS-COMMANDE")
    _add_commands(kernel_sub)
    kernel.set_defaults(func=lambda args: _entry(args, kernel))


def _entry(args, parser) -> int:
    func = getattr(args, "kernel_func", None)
    if func is None:
        parser.print_help()
        return 0
    return int(func(args) or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox.cli",
                                     description="Bac à sable de noyaux Triton de Tuile.")
    sub = parser.add_subparsers(dest="kernel_command", metavar="SOUS-COMMANDE")
    _add_commands(sub)
    args = parser.parse_args(argv)
    try:
        return _entry(args, parser)
    except KeyboardInterrupt:
        print("interrompu.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
