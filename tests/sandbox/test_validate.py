"""The request checks live in the library once (``sandbox.validate``); the CLI uses them.

The CLI is run as a real process (``python -m sandbox.cli``), with real files.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.exercises import get_exercise
from sandbox.validate import MAX_SOURCE_CHARS, validate_request

REPO = Path(__file__).resolve().parents[2]
GOOD = get_exercise("transposition").source("reference")


def test_a_good_request_has_no_problem():
    assert validate_request(GOOD, "transposition", "float16") == []
    assert validate_request(GOOD, "transposition") == []


@pytest.mark.parametrize("source,exercise,dtype,kind,fragment", [
    (GOOD, "transpositon", None, "unknown_exercise", "exercices connus"),
    (GOOD, "", None, "unknown_exercise", "choisissez d'abord un exercice"),
    (GOOD, "transposition", "int8", "options", "types permis\u00a0: float32"),
    ("", "transposition", None, "source", "le code est vide"),
    ("   \n\t", "transposition", None, "source", "le code est vide"),
    (None, "transposition", None, "source", "du texte"),
    ("x = 1\x00\n", "transposition", None, "source", "octet nul (ligne 1)"),
    ("def custom_kernel(x, out)\n    return out\n", "transposition", None, "syntax",
     "il manque «\u00a0:\u00a0»"),
    ("x = (1,\n", "transposition", None, "syntax", "«\u00a0(\u00a0» ouvert mais jamais fermé"),
])
def test_bad_requests_named_in_french(source, exercise, dtype, kind, fragment):
    problems = validate_request(source, exercise, dtype)
    assert problems and problems[0].kind == kind, problems
    assert fragment in problems[0].message, problems[0].message


def test_size_limit_with_french_numbers():
    big = "x = 1\n" * (MAX_SOURCE_CHARS // 6 + 1)
    [p] = validate_request(big, "transposition")
    assert p.kind == "source"
    assert "200\u202f000 au plus" in p.message and "200\u202f004 caractères" in p.message
    assert validate_request("x = 1\n" * (MAX_SOURCE_CHARS // 6), "transposition") == []


def test_bad_mode():
    [p] = validate_request(GOOD, "transposition", mode="tpu")
    assert p.kind == "options" and "modes permis" in p.message


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sandbox.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_cli_refuses_an_oversized_file(tmp_path):
    path = tmp_path / "gros.py"
    path.write_text("# " + "x" * MAX_SOURCE_CHARS + "\n", encoding="utf-8")
    r = _cli("run", str(path), "--exercise", "transposition")
    assert r.returncode == 2
    assert "trop long" in r.stderr and "Traceback" not in r.stderr


def test_cli_syntax_error_in_french_as_a_report(tmp_path):
    path = tmp_path / "faux.py"
    path.write_text("def custom_kernel(x, out)\n    return out\n", encoding="utf-8")
    r = _cli("run", str(path), "--exercise", "transposition", "--json")
    assert r.returncode == 1, r.stderr
    import json

    report = json.loads(r.stdout)
    assert report["error_kind"] == "syntax" and report["error_line"] == 1
    assert "il manque" in report["error"] and "expected" not in report["error"]
