"""The checks of a kernel request that every face makes before running it, in one place.

Public entry: ``validate_request(source, exercise, dtype=None, *, mode="auto") ->
list[Invalid]``: an empty list means the request may go to ``run_submission``; each
``Invalid`` has a ``kind`` (the ``KernelReport.error_kind`` it stands for), a French
``message`` that names the bad value and what is allowed, and the ``line`` when there
is one. The CLI (``sandbox.cli``) and the web tab (``assistant/ui/bac_a_sable.py``) call
it; neither repeats these rules.

Checked, in order (the first failure of the request side stops there): the exercise is
known; the dtype, when given, is one the exercise offers; the mode is auto, gpu or
interpreter; the source is text, not empty, at most ``MAX_SOURCE_CHARS`` characters,
without NUL bytes, and parses (the parser's message in French, with its line).
Standard library only; nothing of the source is run.
"""
from __future__ import annotations

from dataclasses import dataclass

from sandbox.french import fr_number, fr_syntax_error, fr_typo

# The longest exercise file is under 4 000 characters; 200 000 leaves room for a learner's
# notes and tables while keeping a paste mistake (a log, a binary) out of the worker.
MAX_SOURCE_CHARS = 200_000
MODES = ("auto", "gpu", "interpreter")
# Kinds a face treats as a usage error (CLI exit code 2) rather than a wrong submission.
USAGE_KINDS = ("unknown_exercise", "options", "source")


@dataclass(frozen=True)
class Invalid:
    kind: str            # "unknown_exercise" | "options" | "source" | "syntax"
    message: str         # French, one line
    line: int | None = None

    def __str__(self) -> str:
        return self.message


def validate_request(source: object, exercise: str | None, dtype: str | None = None, *,
                     mode: str = "auto") -> list[Invalid]:
    from sandbox.exercises import UnknownExercise, get_exercise

    if not (exercise or "").strip():
        return [Invalid("unknown_exercise", "choisissez d'abord un exercice")]
    try:
        ex = get_exercise(exercise)
    except UnknownExercise as err:
        return [Invalid("unknown_exercise", fr_typo(str(err)))]
    problems: list[Invalid] = []
    if dtype and dtype not in ex.dtypes:
        problems.append(Invalid("options", fr_typo(
            f"type « {dtype} » non proposé pour l'exercice {ex.name} ; types permis : "
            f"{', '.join(ex.dtypes)}")))
    if mode not in MODES:
        problems.append(Invalid("options", fr_typo(
            f"mode inconnu : « {mode} » ; modes permis : {', '.join(MODES)}")))
    problems += _source_problems(source)
    return problems


def _source_problems(source: object) -> list[Invalid]:
    if not isinstance(source, str):
        return [Invalid("source", "le code doit être du texte")]
    if not source.strip():
        return [Invalid("source", fr_typo("le code est vide : partez du squelette de "
                                          "l'exercice et complétez-le"))]
    if len(source) > MAX_SOURCE_CHARS:
        return [Invalid("source", fr_typo(
            f"le code est trop long ({fr_number(len(source), 0)} caractères ; "
            f"{fr_number(MAX_SOURCE_CHARS, 0)} au plus)"))]
    if "\x00" in source:
        line = source[:source.index("\x00")].count("\n") + 1
        return [Invalid("source", fr_typo(f"le code contient un octet nul (ligne {line}) : "
                                          "est-ce bien un fichier Python ?"), line)]
    try:
        compile(source, "soumission.py", "exec", dont_inherit=True)
    except SyntaxError as err:
        return [Invalid("syntax", fr_syntax_error(err), err.lineno)]
    except (ValueError, MemoryError, RecursionError) as err:
        return [Invalid("source", fr_typo(f"code illisible : {err}"))]
    return []
