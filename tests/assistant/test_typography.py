"""French spacing and number formatting (``assistant.typography``)."""
from __future__ import annotations

import pytest

from assistant.typography import NBSP, NNBSP, fr_number, fr_typography, split_code


@pytest.mark.parametrize("raw, expected", [
    ("Qu'est-ce qu'un warp ?", f"Qu'est-ce qu'un warp{NNBSP}?"),
    ("Note : voir ; puis !", f"Note{NBSP}: voir{NNBSP}; puis{NNBSP}!"),
    ("« warp »", f"«{NBSP}warp{NBSP}»"),
    ("«warp»", f"«{NBSP}warp{NBSP}»"),
    ("ligne\n: suite", f"ligne{NBSP}: suite"),
    ("soit 9,3 % de la crête", f"soit 9,3{NNBSP}% de la crête"),               # a soft break would start a line with « : »
    ("fin :\n\nparagraphe", f"fin{NBSP}:\n\nparagraphe"),
    ("[Pourquoi ?](../a/b.md#c) !", f"[Pourquoi{NNBSP}?](../a/b.md#c){NNBSP}!"),
])
def test_french_spacing(raw, expected):
    assert fr_typography(raw) == expected
    assert fr_typography(expected) == expected                # idempotent


@pytest.mark.parametrize("text", [
    "à 10:30, en 16:9, sous C:\\Users, avec std::vector",
    "x[1 : 3] et a[::2]",
    "le code `a ? b : c` reste",
    "voir https://exemple.org/a?b=1 ici",
    "image ![alt](x.png) et a != b",
    "```py\nx = a if b else c ; d ?\n```\n",
    "\\( a : b \\)",
    '<span title="a : b">x</span>',
])
def test_code_urls_times_and_slices_are_left_alone(text):
    assert fr_typography(text) == text


def test_split_code_gives_the_text_back():
    text = "Un `code ? x` puis \\(a : b\\) et [lien](x.md) :\n```\nbloc ;\n```\nfin ?"
    assert "".join(piece for _, piece in split_code(text)) == text


@pytest.mark.parametrize("value, decimals, expected", [
    (4814.0, 1, f"4{NNBSP}814,0"),
    (-1.45721, 3, "-1,457"),
    (50000, 0, f"50{NNBSP}000"),
    (1.5, None, "1,5"),
    (2.0, None, "2"),
])
def test_fr_number(value, decimals, expected):
    assert fr_number(value, decimals) == expected
