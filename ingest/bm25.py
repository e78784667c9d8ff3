"""A French BM25 index, persisted as JSON beside the Chroma store.

The analyser folds accents, drops French stop words and stems with Snowball's French
stemmer, except for the English GPU vocabulary the guide keeps as is (warp, shared memory,
TMA …): stemming "warps" with a French stemmer would merge it with unrelated words, and
"shared memory" is a single notion, indexed as one token as well as two.
"""
from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import Stemmer

from ingest.anchors import fold

_STEMMER = Stemmer.Stemmer("french")
_TOKEN = re.compile(r"[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")

# English terms of the trade kept unstemmed (plural "s" folded), so a query in either
# language meets them; two-word terms are also indexed joined ("shared_memory").
ENGLISH_TERMS = frozenset("""
warp warps wavefront thread threads kernel kernels tile tiles occupancy shared memory tma
wgmma mbarrier tensor core cores cluster clusters stream streams event events graph graphs
launch roofline throughput latency bandwidth cache l1 l2 hbm sram dram lds sm sms cu cus
cuda triton gluon cutlass cute helion pytorch torch compile inductor dynamo jax pallas
hip rocm sycl opencl vulkan metal mojo numba cupy thunderkittens tilelang cutile
megakernel megakernels persistent scheduler swizzle swizzling padding coalescing
coalesced stride strided vectorized load store loads stores prefetch pipeline pipelines
producer consumer softmax attention flashattention gemm gemv matmul transpose reduction
scan histogram atomic atomics shuffle ballot vote divergence barrier fence prefill decode
batching paged pagedattention kv quantization fp8 fp16 bf16 tf32 fp32 fp64 fp4 int8 int4
nvfp4 mxfp4 nvlink nvswitch pcie nccl allreduce all-reduce ncu nsight sanitizer profiler
ptx sass cubin nvcc hipcc sm_90 sm_90a sm_100 sm_100a gfx942 gfx950 hopper blackwell ampere
volta turing cdna rdna mi300x mi350x h100 h200 b200 gb200 a100 l4 rtx tcgen05 tmem dsmem
""".split())
_JOINED = {("shared", "memory"), ("tensor", "core"), ("tensor", "cores"), ("thread", "block"),
           ("warp", "specialization"), ("kv", "cache"), ("all", "reduce"), ("memory", "bound"),
           ("compute", "bound")}

STOP_WORDS = frozenset("""
a au aux avec ce ces cet cette dans de des du elle en et eux il ils je la le les leur leurs
lui ma mais me meme mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son
sur ta te tes toi ton tu un une vos votre vous c d j l m n s t y est sont ete etre avoir ont
a-t-il fait faire plus moins tres comme si donc alors ainsi cela ca ceci quel quelle quels
quelles quoi comment pourquoi quand combien est-ce est-il lorsque dont the of and to in is
are for what how why which does do it this that with on an be by can
""".split())


def analyze(text: str) -> list[str]:
    """Turn text into BM25 terms: folded, stop words dropped, French words stemmed."""
    raw = _TOKEN.findall(fold(text).replace("’", "'"))
    terms: list[str] = []
    for i, tok in enumerate(raw):
        if tok in STOP_WORDS or len(tok) < 2 and not tok.isdigit():
            continue
        if tok in ENGLISH_TERMS:
            terms.append(tok[:-1] if tok.endswith("s") and tok[:-1] in ENGLISH_TERMS else tok)
        else:
            terms.append(_STEMMER.stemWord(tok))
        if i + 1 < len(raw) and (tok, raw[i + 1]) in _JOINED:
            terms.append(f"{tok}_{raw[i + 1]}")
    return terms


@dataclass
class BM25Index:
    """Okapi BM25 over a few thousand passages; pure Python is fast enough (< 5 ms a query)."""

    ids: list[str]
    docs: list[list[str]]
    k1: float = 1.2
    b: float = 0.75

    def __post_init__(self) -> None:
        self._tf = [Counter(d) for d in self.docs]
        self._len = [len(d) for d in self.docs]
        self._avg = (sum(self._len) / len(self._len)) if self._len else 0.0
        df: Counter[str] = Counter()
        for tf in self._tf:
            df.update(tf.keys())
        n = len(self.docs)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._postings: dict[str, list[int]] = {}
        for i, tf in enumerate(self._tf):
            for term in tf:
                self._postings.setdefault(term, []).append(i)

    @classmethod
    def from_texts(cls, ids: list[str], texts: list[str]) -> "BM25Index":
        return cls(ids=list(ids), docs=[analyze(t) for t in texts])

    def search(self, query: str, k: int = 20, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        scores: dict[int, float] = {}
        for term in set(analyze(query)):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for i in self._postings[term]:
                tf = self._tf[i][term]
                norm = tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self._len[i] / self._avg))
                scores[i] = scores.get(i, 0.0) + idf * norm
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        out = []
        for i, score in ranked:
            if allowed is not None and self.ids[i] not in allowed:
                continue
            out.append((self.ids[i], score))
            if len(out) == k:
                break
        return out

    def save(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"ids": self.ids, "docs": self.docs}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> "BM25Index":
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(ids=data["ids"], docs=data["docs"])
