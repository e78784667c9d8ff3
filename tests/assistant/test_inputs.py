"""Odd inputs get a clear French message and an ``invalid`` answer; nothing crashes."""
from __future__ import annotations

import os

import pytest

from assistant.answer import answer
from assistant.inputs import MAX_CHARS, check_question

from answer_fixtures import ExplodingRetriever, run

ODD = {
    "empty": "",
    "whitespace": " \t\n  \u3000 ",
    "50k": "Pourquoi ? " * 5000,
    "binary_bytes": os.urandom(4096).replace(b"\x00", b"\x01") + b"\xff\xfe\x00",
    "nul_in_text": "warp\x00\x00\x00\x01\x02",
    "control_chars": "".join(chr(c) for c in range(1, 32)) * 3,
    "no_letters": "??? 123 !!!",
    "none": None,
    "number": 42,
}


@pytest.mark.parametrize("name", ODD)
def test_odd_input_gets_french_message(name):
    pieces, final = run(answer(ODD[name], retriever=ExplodingRetriever()))
    assert final.kind == "invalid"
    assert final.text and pieces[0].text == final.text
    assert any(word in final.text for word in ("question", "Question", "texte")), final.text
    final.to_json()  # serialisable even for garbage


def test_too_long_names_the_length_and_the_limit():
    checked = check_question("x" * 50_000)
    assert not checked.ok
    assert "50\u202f000" in checked.message and f"{MAX_CHARS:,}".replace(",", "\u202f") in checked.message
    assert "noyau, utilisez" in checked.message


@pytest.mark.parametrize("raw, language", [
    ("Pourquoi ma transposition plafonne-t-elle ?", "fr"),
    ("Why does my transpose only reach 25% of the bandwidth?", "en"),
    ("  Qu'est-ce qu'un warp ?\n", "fr"),
    ("What is a warp?".encode("utf-8"), "en"),
    ("whats a cuda stream", "en"),
    ("c koi un warp", "fr"),
    # no function word: the everyday words decide
    ("explain memory coalescing pls", "en"),
    ("MI300X vs H100: memory, bandwidth, BF16, side by side please", "en"),
    ("coalescence vs alignement, différence ?", "fr"),
    # a quoted error message is not the question's language
    ("mon programme plante avec « no kernel image is available for execution on the device »", "fr"),
])
def test_valid_questions_pass_with_their_language(raw, language):
    checked = check_question(raw)
    assert checked.ok and checked.language == language
    assert checked.text == checked.text.strip()
