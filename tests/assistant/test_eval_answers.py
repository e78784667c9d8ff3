"""The eval sets of ``tuile eval answers``: dev and test parts, and their formats."""
from __future__ import annotations

import argparse

from evals.answers import _clean, _items, _set_name, add_arguments, load_split


def test_bare_off_kind_is_read_as_off():
    # YAML 1.1 reads `kind: off` as false
    assert _items([{"q": "x ?", "kind": False}])[0]["kind"] == "off"
    assert _clean({"q": "x ?", "kind": "near"})["kind"] == "near"


def test_english_list_is_tagged_and_both_formats_are_read():
    items = _items({"questions": [{"q": "a ?", "gold": ["x"]}], "english": [{"q": "b?", "gold": ["y"]}]})
    assert [i.get("lang") for i in items] == [None, "en"]
    assert _items([{"q": "c ?", "gold": ["z"], "lang": "fr"}])[0]["lang"] == "fr"


def test_dev_split_has_every_part():
    dev = load_split("dev")
    assert dev["inscope"] and dev["outside"] and dev["conversations"]
    assert {q.get("kind") for q in dev["outside"]} >= {"off", "near", "trap"}
    assert all(set(q) >= {"q", "gold"} for q in dev["inscope"])


def test_dev_questions_carry_their_writing_round():
    dev = load_split("dev")
    assert {q["set"] for q in dev["inscope"]} == {"first", "dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9", "dev10", "dev11", "dev12", "dev13", "dev14", "dev15", "dev16", "dev17", "dev18", "dev19", "dev20", "dev21", "dev22", "dev23", "dev24", "dev25"}
    assert {q["set"] for q in dev["outside"]} == {"first", "dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9", "dev10", "dev11", "dev12", "dev13", "dev14", "dev15", "dev16", "dev17", "dev18", "dev19", "dev20", "dev21", "dev22", "dev23", "dev24", "dev25"}


def test_set_names_and_the_dev_flag():
    assert [_set_name(n) for n in ("answers_inscope.yaml", "answers_outofscope_dev.yaml", "answers_followups_dev2.yaml")] \
        == ["first", "dev", "dev2"]
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["--dev"]).split == "dev"
    assert parser.parse_args([]).split == "both"
