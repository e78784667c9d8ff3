"""The reading paths: the dialogue that recommends one (A–F), and the door to it.

    from assistant.paths import DialogueState, PathDialogue
    state, display = PathDialogue().step(DialogueState(), "je fais du PyTorch")

``dialogue`` runs the questions (``PathDialogue.step``); ``state`` is the record it keeps
between turns; ``checks`` guards every recommendation against what the reader said;
``reading`` reads a free answer (with ``clauses``, ``clash``, ``quotes``, ``spelling``,
``choice``), ``yesno`` a yes or no; ``route`` tells a question about what to read, which the
answer pipeline hands here instead of answering it from passages.
"""
from assistant.paths.dialogue import Display, PathDialogue, duration, load_paths
from assistant.paths.route import READING_PATH_REPLY, Route, route
from assistant.paths.state import DialogueState

__all__ = ["DialogueState", "Display", "PathDialogue", "READING_PATH_REPLY", "Route", "duration",
           "load_paths", "route"]
