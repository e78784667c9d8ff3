"""The guide's Markdown follows French spacing outside code: no ordinary space before
``: ; ? ! »`` nor after ``«`` (``scripts/fr_typography.py --write corpus/`` fixes them)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.typography import fr_typography, split_code

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
# An ordinary space (or a soft line break) before the mark, when the mark ends a word:
# « ![image] », « a != b » and « a[1 : 3] » are code-like and not prose.
_FAULT = re.compile(r"(?<=\S)(?:[ \t]+|[ \t]*\n[ \t]*)(?:[;?!](?![;?!]*[=\[])|:(?!:)|»)(?=$|[\s*_)\]»\"'.,;:!?…<|])|«[ \t]")
_SLICE = re.compile(r"[\w)\]]\[[^\[\]\s]*\s*:\s*[^\[\]\s]*\]")


def _body(text: str) -> str:
    """The text after the front matter and the ``# title`` line (which must equal the
    front matter's title and plan.yaml's, so it keeps their spelling)."""
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        text = text[text.find("\n", end + 4) + 1:] if end >= 0 else text
    return re.sub(r"^\n*# [^\n]*\n", "", text, count=1)


def _faults(text: str) -> list[str]:
    out = []
    for protected, piece in split_code(_body(text)):
        if protected:
            continue
        piece = _SLICE.sub("x", piece)
        out += [piece[max(0, m.start() - 25):m.end() + 5] for m in _FAULT.finditer(piece)
                if "\n\n" not in m.group(0)]
    return out


CHAPTERS = sorted(CORPUS.rglob("*.md"))


@pytest.mark.parametrize("path", CHAPTERS, ids=[str(p.relative_to(CORPUS)) for p in CHAPTERS])
def test_no_ordinary_space_before_french_marks(path):
    text = path.read_text(encoding="utf-8")
    faults = _faults(text)
    assert not faults, (f"{path.relative_to(CORPUS)} : {len(faults)} espace(s) ordinaire(s) "
                        f"(python scripts/fr_typography.py --write corpus/) : {faults[:5]}")


def test_the_check_sees_a_fault_and_the_fix_removes_it():
    sample = "Qu'est-ce qu'un warp ? Réponse : « un groupe » ; voir `a ? b : c`.\n"
    assert len(_faults(sample)) == 5
    assert _faults(fr_typography(sample)) == []
    assert fr_typography(fr_typography(sample)) == fr_typography(sample)
