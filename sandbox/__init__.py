"""Tuile's kernel sandbox: check a learner's Triton kernel, time it, compare it with the card.

Entry points: ``sandbox.runner.run_submission(source, exercise, options)`` returns a
``sandbox.records.KernelReport``; ``sandbox.exercises.get_exercise(name)`` gives an
exercise (template, reference and naive solutions, shapes, bytes); ``python -m
sandbox.cli`` (or ``tuile kernel``) is the command line. This package imports only torch,
triton and the standard library, so that it runs on a GPU host with nothing else; torch
is imported lazily, so ``import sandbox`` is cheap.

Roles: ``runner`` (the trusted parent), ``judge`` (trusted process that checks, times and
writes the report), ``launcher`` (jailed process that imports the submission),
``channel`` (their wire and shared buffers), ``jail`` (isolation), ``exercises``,
``profile``, ``precheck`` (static, defence in depth), ``gpuqueue``, ``hardware``.
"""
from sandbox.records import KernelReport, RunOptions

__all__ = ["KernelReport", "RunOptions", "run_submission", "get_exercise", "list_exercises"]


def run_submission(source, exercise, options=None):
    from sandbox.runner import run_submission as _run

    return _run(source, exercise, options or RunOptions())


def get_exercise(name):
    from sandbox.exercises import get_exercise as _get

    return _get(name)


def list_exercises():
    from sandbox.exercises import list_exercises as _list

    return _list()
