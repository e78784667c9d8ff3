"""Shared steps of the reading-path tests: the dialogue on the shipped corpus, and a run of turns."""
from pathlib import Path

import pytest

from assistant.paths import DialogueState, PathDialogue

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def dialogue() -> PathDialogue:
    return PathDialogue(ROOT / "corpus")


def run_turns(dialogue, *turns):
    """Start the dialogue, then answer each turn in order; the last state and display."""
    state, display = dialogue.step(DialogueState())
    for text in turns:
        state, display = dialogue.step(state, text)
    return state, display
