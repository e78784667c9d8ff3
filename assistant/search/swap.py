"""A follow-up that swaps one thing of the previous question for another of its kind.

``swapped(previous, followup)`` returns the previous question with the thing replaced, or None.
« et en bf16 ? » after « c'est quoi la taille mémoire d'un paramètre en fp16 », "and the
H200?" after "what's the HBM bandwidth of an H100": the reader asks the same question of
another card, format or language. Prepending the previous question to the follow-up keeps
both names, and the previous one wins the search (on the dev conversations, 3 of the 19
two-turn answers that missed their gold chapter were such swaps: the H100's figure given
for the H200, the FP16 chapter for BF16). A swap needs a short follow-up that names exactly
one thing of a kind and a previous question that names exactly one thing of that kind, a
different one (two names written side by side, "FP8 E4M3", are one thing; a card keeps its
form factor, "H100 SXM"); anything else is left to the general rule.
"""
from __future__ import annotations

import re

# The kinds a learner swaps between two turns: a card, a number format, a language or
# library, an architecture.
_KINDS = (
    re.compile(r"\b(?:[hab]100|h200|h800|h20|a10g?|a30|a40|a6000|l4|l40s?|t4|v100|p100|b200|gb200|b300|gb300|"
               r"(?:rtx ?)?[2-5]0[5-9]0(?: ?ti)?|mi\d{3}x?|gaudi ?\d?|tpu(?: ?v\d)?|jetson|dgx spark)"
               # a form factor goes with its card: "and mi300x?" after "an h100 sxm" asks of an MI300X
               r"(?:[ -]?(?:sxm\d?|pcie|nvl))?\b", re.I),
    re.compile(r"\b(?:fp64|fp32|fp16|bf16|fp8|fp6|fp4|nvfp4|mxfp4|mxfp8|tf32|int8|int4|e4m3|e5m2)\b", re.I),
    re.compile(r"\b(?:cuda|triton|cutlass|cute|pytorch|jax|numba|hip|rocm|opencl|sycl|mojo|cupy|thunderkittens|"
               r"helion|tilelang)\b", re.I),
    re.compile(r"\b(?:hopper|blackwell|ampere|volta|turing|ada|lovelace|pascal|cdna ?\d?|rdna ?\d?)\b", re.I),
)
_MAX_WORDS = 6   # « et pour une RTX 4090 alors ? » has 6; a longer one says more than a swap


def swapped(previous: str, followup: str) -> str | None:
    """``previous`` with its one thing of a kind replaced by the one the follow-up names."""
    if len(re.findall(r"[\w'-]+", followup)) > _MAX_WORDS:
        return None
    for kind in _KINDS:
        given = [followup[a:b] for a, b in _things(kind, followup)]
        spans = _things(kind, previous)
        old = {previous[a:b].lower() for a, b in spans}
        if len({g.lower() for g in given}) != 1 or len(old) != 1:
            continue
        if old == {given[0].lower()} or given[0].lower() in next(iter(old)).split():
            return None
        for a, b in reversed(spans):
            previous = previous[:a] + given[0] + previous[b:]
        return previous
    return None


def _things(kind: re.Pattern, text: str) -> list[tuple[int, int]]:
    """The spans of the things of ``kind`` in ``text``, two written side by side (one space) as
    one: "fp8 e4m3" is one format (dev15: "and e5m2?" after "the max value in fp8 e4m3" was no
    swap, 1 of its 12 missed conversations)."""
    spans: list[tuple[int, int]] = []
    for m in kind.finditer(text):
        if spans and re.fullmatch(r" ", text[spans[-1][1]:m.start()]):
            spans[-1] = (spans[-1][0], m.end())
        else:
            spans.append((m.start(), m.end()))
    return spans
