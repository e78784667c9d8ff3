"""Typed errors of the library. Each carries a French message fit to show a user as is."""
from __future__ import annotations


class TuileError(Exception):
    """Base of every expected failure; the CLI and UI show ``str(err)`` and keep going."""


class CorpusError(TuileError):
    """A chapter file is malformed. Names the file, the line or field, and what is expected."""

    def __init__(self, path: str, problem: str, line: int | None = None, field: str | None = None):
        self.path, self.problem, self.line, self.field = path, problem, line, field
        where = path + (f", ligne {line}" if line else "") + (f", champ « {field} »" if field else "")
        super().__init__(f"{where} : {problem}")


class ConfigError(TuileError):
    """A setting names something unknown (an embedder, a generator …)."""


class IndexMissingError(TuileError):
    """No index has been built yet in the configured directory."""
