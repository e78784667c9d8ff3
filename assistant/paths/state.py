"""The reading-path dialogue's state: the answers given so far, as an explicit record.

``DialogueState`` is all the dialogue remembers between two turns; it serialises to a plain
dict (``to_dict`` / ``from_dict``) so that the CLI, the UI and the evals can hold it. What
the answers say of path F's prerequisites (``facts``, ``stated``, ``contested``) and the
levels they rule out (``excluded``) are read from it here. The dialogue
(``assistant.paths.dialogue``) and its checks (``assistant.paths.checks``) both import it;
it imports neither.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


@dataclass
class DialogueState:
    # [[key, value], ...] or [[key, value, facts], ...]: "level", "goal", "pre:<id>"; facts are
    # the prerequisites an answer's own words settled ({"warp": true, "tma": false}).
    answers: list[list] = field(default_factory=list)
    clarify: list[str] = field(default_factory=list)    # option ids offered by a pending clarification
    pending: dict = field(default_factory=dict)         # facts of the answer being clarified
    reopened: list[str] = field(default_factory=list)   # the clarification reopens a contradicted level
    # A pending question about two facts of one answer that do not go together: [the first in
    # the reader's words, the second, the whole answer]; picking one re-reads the answer without the other.
    clash: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> "DialogueState":
        data = data or {}
        return cls(answers=[list(a) for a in data.get("answers", [])], clarify=list(data.get("clarify", [])),
                   pending=dict(data.get("pending", {}) or {}), reopened=list(data.get("reopened", [])),
                   clash=[str(x) for x in data.get("clash", [])][:3])

    def get(self, key: str):
        for a in self.answers:
            if a[0] == key:
                return a[1]
        return None

    def facts(self) -> dict[str, bool]:
        """What the answers say of each prerequisite; a direct answer to its question wins."""
        out = self.stated()
        for a in self.answers:
            if a[0].startswith("pre:"):
                out[a[0][4:]] = bool(a[1])
        return out

    def stated(self) -> dict[str, bool]:
        """Prerequisites settled by the reader's own words (not by a yes/no question); one that
        an answer affirms and another denies is not settled (``contested``): it is asked."""
        out: dict[str, bool] = {}
        for a in self.answers:
            if len(a) > 2 and isinstance(a[2], dict):
                for k, v in a[2].items():
                    if ":" not in k:
                        out[k] = bool(out.get(k, True) and v)
        return {k: v for k, v in out.items() if k not in self.contested()}

    def contested(self) -> set[str]:
        """Prerequisites that one answer's words affirm and another's deny ("je connais TMA",
        then "megakernels, mais TMA jamais vu")."""
        said: dict[str, set[bool]] = {}
        for a in self.answers:
            if len(a) > 2 and isinstance(a[2], dict):
                for k, v in a[2].items():
                    if ":" not in k:
                        said.setdefault(k, set()).add(bool(v))
        return {k for k, values in said.items() if len(values) > 1}

    def excluded(self) -> set[str]:
        """Levels the reader's own words rule out ("level:<id>": False in an answer's facts),
        unless the reader chose that level again when asked about it ("level:<id>": True)."""
        said = {k[6:] for a in self.answers if len(a) > 2 and isinstance(a[2], dict)
                for k, v in a[2].items() if k.startswith("level:") and not v}
        confirmed = {k[6:] for a in self.answers if len(a) > 2 and isinstance(a[2], dict)
                     for k, v in a[2].items() if k.startswith("level:") and v}
        return said - confirmed
