"""Records of the answer stage: plain frozen dataclasses that serialise to JSON.

``answer()`` yields ``Piece``s (what to show as it comes) and then one ``Answer``.
``Conversation`` is the whole state of a chat: the CLI and the UI keep it, pass it to
``answer()`` and replace it by ``conversation.with_answer(answer)``; nothing is hidden
in module globals, so a conversation can be saved as JSON and resumed.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Citation:
    n: int                # the number shown in the answer text: "[n]"
    chapter_id: str       # "performance-07"
    label: str            # "Performance · 7. Étude de cas : … › Version naïve"
    link: str             # "corpus/03-performance/07-transposition.md#version-naive"
    section: str
    anchor: str
    path: str             # chapter file relative to corpus/

    @classmethod
    def from_hit(cls, hit, n: int) -> "Citation":
        """The citation of a retrieved ``assistant.records.Hit`` under number ``n``."""
        return cls(n, hit.chapter_id, hit.label, hit.link, hit.section, hit.anchor, hit.path)


@dataclass(frozen=True)
class Quote:
    """One sentence of a composed answer, copied verbatim from the section of citation ``n``."""
    text: str
    n: int


@dataclass(frozen=True)
class Piece:
    """A part of the answer to show as soon as it is produced.

    ``kind`` is "text" (append) or "notice" (a one-line remark to show apart). The text comes
    only once the reply is checked (an LLM draft that fails its check never shows: its notice
    says why and the composed answer follows), so nothing shown is ever withdrawn.
    """
    kind: str
    text: str


@dataclass(frozen=True)
class Answer:
    question: str                 # as typed (after stripping)
    kind: str                     # "answer" | "refusal" | "reading_path" | "invalid"
    text: str                     # the whole answer, Markdown
    resolved_question: str = ""   # what was searched: the question with its follow-up context
    followup: bool = False
    generator: str = "composed"   # the generator that produced ``text``
    citations: tuple[Citation, ...] = ()
    quotes: tuple[Quote, ...] = ()          # composed answers only
    further: tuple[Citation, ...] = ()      # "Pour approfondir"
    suggestions: tuple[Citation, ...] = ()  # refusals: the nearest chapters
    notice: str = ""              # e.g. why the LLM answer was replaced
    language: str = "fr"          # language of the question: "fr" or "en"
    relevance: float = 0.0        # score compared with the calibrated refusal threshold
    decision: str = ""            # "answer" | "partial" | "refuse" (assistant.search.relevance)

    @property
    def chapter_ids(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for c in self.citations:
            seen.setdefault(c.chapter_id, None)
        return tuple(seen)

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)


@dataclass(frozen=True)
class Turn:
    question: str
    resolved_question: str
    kind: str
    chapter_ids: tuple[str, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class Conversation:
    turns: tuple[Turn, ...] = field(default_factory=tuple)

    def with_answer(self, answer: Answer) -> "Conversation":
        """A new conversation with ``answer`` appended (invalid questions are not kept)."""
        if answer.kind == "invalid":
            return self
        turn = Turn(answer.question, answer.resolved_question or answer.question,
                    answer.kind, answer.chapter_ids, answer.text)
        return Conversation(self.turns + (turn,))

    @property
    def last(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> "Conversation":
        turns = []
        for t in data.get("turns", ()):
            t = dict(t)
            t["chapter_ids"] = tuple(t.get("chapter_ids", ()))
            turns.append(Turn(**t))
        return cls(tuple(turns))

    @classmethod
    def from_json(cls, text: str) -> "Conversation":
        return cls.from_dict(json.loads(text))
