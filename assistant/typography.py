"""French typography for every text the assistant shows, and one French number formatter.

``fr_typography(text)`` applies the French spacing rules to Markdown: a narrow no-break
space (U+202F) before ``; ? !``, a no-break space (U+00A0) before ``:`` and inside « »,
and between a number and ``%``, so a line never starts with « : », « » » or « % ». It only changes the spaces that are already
there (or inserts them inside guillemets), never in code spans or blocks, math, URLs,
link targets or HTML tags; ``10:30``, ``16:9``, ``C:\\``, ``std::`` and ``x[1 : 3]`` are
left alone. A space at a soft line break before the mark is joined too (the Markdown
renderer would turn the newline into a breakable space). Applying it twice changes nothing.

``fr_number(x, decimals)`` formats with Babel's CLDR data for ``fr_FR``: groups of three
digits separated by U+202F, a decimal comma (``4 814,0``).

    >>> fr_typography("Qu'est-ce qu'un warp ?")
    "Qu'est-ce qu'un warp\u202f?"
"""
from __future__ import annotations

import re

from babel.numbers import format_decimal

NNBSP = "\u202f"   # narrow no-break space: before ; ? !
NBSP = "\u00a0"    # no-break space: before : and inside « »

_SPACES = "[ \t\u00a0\u202f]"
# Protected segments become one placeholder character each: inline ones from plane 15,
# fenced blocks from plane 16 (no text may be joined onto a fence).
_INLINE0, _BLOCK0 = 0xF0000, 0x100000
_PLACEHOLDER = "\U000F0000-\U000FFFFD"
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE = re.compile(
    r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)"          # code spans
    r"|\\\(.+?\\\)|\\\[.+?\\\]|\$\$.+?\$\$"      # math
    r"|<(?:https?:|mailto:)[^>\s]*>"            # autolinks
    r"|<[A-Za-z/!][^>\n]*>"                     # HTML tags and comments
    r"|(?:https?://|www\.)[^\s<>()\[\]]+"        # bare URLs
    r"|(?<=\])\([^)\s]*(?:\s+\"[^\"]*\")?\)",    # link targets
    re.S)
# What may follow the mark: the end, a space, closing punctuation or a protected segment.
_AFTER = rf"(?=$|[\s*_)\]»\"'.,;:!?…<|{_PLACEHOLDER}])"
_BEFORE = r"(?<=[^\s\U00100000-\U0010FFFD])"  # a visible character, not a fence
_SOFT = rf"(?:{_SPACES}*\n(?!{_SPACES}*\n){_SPACES}*|{_SPACES}+)"   # spaces, or one soft line break
_HIGH = re.compile(rf"{_BEFORE}{_SOFT}([;?!])(?![;?!]*[=\[]){_AFTER}")
_COLON = re.compile(rf"{_BEFORE}{_SOFT}:(?!:){_AFTER}")
_PERCENT = re.compile(rf"(?<=\d){_SPACES}+%")
_OPEN_QUOTE = re.compile(rf"«{_SPACES}*(?=[^\s])")
_CLOSE_QUOTE = re.compile(rf"{_BEFORE}(?:{_SOFT})?»")
# « x[1 : 3] »: an index or slice (the bracket follows a name or a closing bracket).
_SLICE_LEFT = re.compile(r"[\w)\]]\[[^\[\]\s]*\s*$")


def fr_typography(text: str) -> str:
    """``text`` (Markdown) with French spacing before ``: ; ? !`` and inside « »."""
    if not text:
        return text
    protected: list[str] = []
    masked = _mask(text, protected)
    masked = _HIGH.sub(lambda m: NNBSP + m.group(1), masked)
    masked = _COLON.sub(lambda m: m.group(0) if _is_slice(masked, m.start()) else NBSP + ":", masked)
    masked = _PERCENT.sub(NNBSP + "%", masked)
    masked = _OPEN_QUOTE.sub("«" + NBSP, masked)
    masked = _CLOSE_QUOTE.sub(NBSP + "»", masked)
    return _unmask(masked, protected)


def fr_number(value: float, decimals: int | None = 0) -> str:
    """``value`` with ``decimals`` digits after the comma, French grouping (``12 345,6``);
    ``decimals=None``: as many as needed, three at most (``1,5``, ``2``)."""
    if decimals is None:
        pattern = "#,##0.###"
    else:
        pattern = "#,##0" + ("." + "0" * decimals if decimals > 0 else "")
    return format_decimal(value, format=pattern, locale="fr_FR")


def split_code(text: str) -> list[tuple[bool, str]]:
    """``text`` cut into (is_protected, piece): code, math, URLs, tags and link targets
    are protected; joining the pieces gives ``text`` back."""
    protected: list[str] = []
    masked = _mask(text, protected)
    out: list[tuple[bool, str]] = []
    buf = []
    for ch in masked:
        n = ord(ch)
        if n >= _INLINE0 and n - (_BLOCK0 if n >= _BLOCK0 else _INLINE0) < len(protected):
            if buf:
                out.append((False, "".join(buf)))
                buf = []
            out.append((True, protected[n - (_BLOCK0 if n >= _BLOCK0 else _INLINE0)]))
        else:
            buf.append(ch)
    if buf:
        out.append((False, "".join(buf)))
    return out


def _is_slice(masked: str, start: int) -> bool:
    line_start = masked.rfind("\n", 0, start) + 1
    return bool(_SLICE_LEFT.search(masked[line_start:start + 1].rstrip(":")))


def _mask(text: str, protected: list[str]) -> str:
    """Replace fenced blocks, then inline protected segments, by placeholders."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        fence, j = m.group(1), i + 1
        close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        protected.append("\n".join(lines[i:j + 1]))
        out.append(chr(_BLOCK0 + len(protected) - 1))
        i = j + 1
    masked = "\n".join(out)

    def hide(m: re.Match) -> str:
        protected.append(m.group(0))
        return chr(_INLINE0 + len(protected) - 1)

    return _INLINE.sub(hide, masked)


def _unmask(masked: str, protected: list[str]) -> str:
    def show(m: re.Match) -> str:
        n = ord(m.group(0))
        return protected[n - (_BLOCK0 if n >= _BLOCK0 else _INLINE0)]

    return re.sub("[\U000F0000-\U000FFFFD\U00100000-\U0010FFFD]", show, masked)
