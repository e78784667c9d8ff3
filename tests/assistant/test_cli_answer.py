"""``tuile ask`` / ``tuile chat`` on what needs no index: odd input, routing, bad --llm."""
from __future__ import annotations

import json

import pytest

from assistant.cli import main


def test_ask_empty_question_is_a_french_message_and_exit_1(capsys):
    assert main(["ask", "   "]) == 1
    assert "La question est vide" in capsys.readouterr().out


def test_ask_json_prints_the_record(capsys):
    assert main(["ask", "--json", "Par où commencer ?"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "reading_path" and "parcours" in data["text"]


def test_unknown_llm_lists_known_generators(capsys):
    assert main(["ask", "--llm", "gpt-9", "Qu'est-ce qu'un warp ?"]) == 2
    err = capsys.readouterr().err
    assert "générateur inconnu" in err and "ollama:<modèle>" in err and "Traceback" not in err


def test_chat_hands_reading_path_questions_to_the_dialogue(monkeypatch, capsys, tmp_path):
    # the question, then two answers in the path dialogue, then back to the chat and out
    lines = iter(["", "Par où commencer ?", "1", "1", "/quitter"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    save = tmp_path / "conv.json"
    assert main(["chat", "--save", str(save)]) == 0
    out = capsys.readouterr().out
    assert "dialogue des parcours" in out and "Parcours" in out
    saved = json.loads(save.read_text(encoding="utf-8"))
    assert saved["turns"][0]["kind"] == "reading_path"


def test_chat_resume_of_a_broken_file_is_a_message(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("{pas du json", encoding="utf-8")
    assert main(["chat", "--resume", str(bad)]) == 2
    assert "impossible de reprendre" in capsys.readouterr().err
