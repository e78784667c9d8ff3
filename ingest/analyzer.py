"""The one text analyser of Tuile: the index, the answers and the evals all read text through it.

``terms(text)`` gives the content terms of a text: words lower-cased, accents folded
(``ingest.anchors.fold``), French and English stop words dropped, French words stemmed
with Snowball (PyStemmer), and the English GPU vocabulary the guide keeps as is (warp,
shared memory, TMA …) left unstemmed, plural folded: stemming "warps" with a French
stemmer would merge it with unrelated words. ``index_terms(text)`` adds the two-word
notions as one joined token ("shared_memory"), for BM25. ``words(text)`` is the plain
tokenizer (lower-cased, accents kept) for rules that read words rather than terms.

The French typography of the corpus puts U+00A0 and U+202F before « : ; ? ! » and inside
quotes; both, and the thin space U+2009, are spaces here. Accents are folded *before*
stemming, so that a question typed without accents ("memoire partagee") meets the
guide's "mémoire partagée" term for term.

    from ingest.analyzer import terms
    terms("Les warps de la mémoire partagée")   # ['warp', 'memoir', 'partag']
"""
from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

from ingest.anchors import fold

_FRENCH = Stemmer.Stemmer("french")
_ENGLISH = Stemmer.Stemmer("english")
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2019": "'", "\u2018": "'"})
_WORD = re.compile(r"\w+(?:\.\w+)*")

# English terms of the trade kept unstemmed (plural "s" folded), so a query in either
# language meets them.
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
nvfp4 mxfp4 nvlink nvswitch pcie nccl allreduce ncu nsight sanitizer profiler
ptx sass cubin nvcc hipcc sm_90 sm_90a sm_100 sm_100a gfx942 gfx950 hopper blackwell ampere
volta turing cdna rdna mi300x mi350x h100 h200 b200 gb200 a100 l4 rtx tcgen05 tmem dsmem
""".split())
# Two-word notions also indexed joined, so that BM25 rewards the phrase over its words.
_JOINED = frozenset({("shared", "memory"), ("tensor", "core"), ("tensor", "cores"), ("thread", "block"),
                     ("warp", "specialization"), ("kv", "cache"), ("all", "reduce"), ("memory", "bound"),
                     ("compute", "bound")})

# Words that carry no topic: French and English function words, question words and the
# verbs people wrap questions in ("expliquer", "savoir", "faut-il"). Compared folded.
_STOP_TEXT = """
a à ai ainsi alors au aucun aussi autre autres aux avec avoir bien c ça car ce ceci cela
celle celles celui cependant ces cet cette ceux chaque chez ci comme comment comprendre
d dans de des deux dire dis doit doivent donc dont du elle elles en encore entre est
et étaient était été être eu explique expliquer expliquez fait faire faut fois font
il ils j je jusqu l la le les leur leurs lors lui m ma mais me même meme mes moi mon n ne ni
non nos notre nous on ont ou où par parce pas peu peut peuvent plus moins pour pourquoi
pourrais pouvez puis puisque qu quand que quel quelle quelles quels qui quoi rien s sa
sans savoir se sert servent ses si sinon son sont sous suis sur t ta te tes toi ton
toujours tous tout toute toutes très tres tu un une vers voir vos votre vous y
veut signifie exactement concrètement simplement rapidement vraiment ok oui bon
guide chapitre lorsque combien
the of and or to in on at by for with from into is are was were be been being do does
did how why what which who whom when where whose this that these those it its an as
can could should would will shall may might must i you we they he she my your our
their me us them not no yes if then than so about explain tell please between vs
many much more most some any each such only very just there here get got make need
"""
STOP_WORDS = frozenset(fold(w) for w in _STOP_TEXT.split())


def normalise(text: str) -> str:
    """No-break and thin spaces to spaces, curly apostrophes to straight ones."""
    return text.translate(_SPACES)


def words(text: str) -> list[str]:
    """Lower-cased words of ``text``, accents kept (apostrophes and dashes split them)."""
    return _WORD.findall(normalise(text).lower())


# PyTorch's names of the formats, one term with the guide's: the tolerance table's row is « BF16 »,
# the learner asks for "bfloat16 tensors" (round-19 hand-read: the row was never quoted)
_FORMAT_NAMES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float64": "fp64",
                 "tfloat32": "tf32", "float8": "fp8"}


@lru_cache(maxsize=65536)
def term(word: str) -> str:
    """The term of one folded word: English GPU words kept (plural folded), French stemmed."""
    word = _FORMAT_NAMES.get(word, word)
    if word in ENGLISH_TERMS:
        return word[:-1] if word.endswith("s") and word[:-1] in ENGLISH_TERMS else word
    return _FRENCH.stemWord(word)


@lru_cache(maxsize=65536)
def english_term(word: str) -> str:
    """The English form of a folded word: the GPU vocabulary as ``term`` keeps it, other
    words stemmed with the English Snowball stemmer (to match English phrases together)."""
    if word in ENGLISH_TERMS or word in _FORMAT_NAMES or (word.endswith("s") and word[:-1] in ENGLISH_TERMS):
        return term(word)
    return _ENGLISH.stemWord(word)


def content_words(text: str) -> list[str]:
    """Folded words of ``text`` that carry a topic (stop words and one-letter words out)."""
    return [w for w in (fold(w) for w in words(text))
            if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())]


def terms(text: str) -> list[str]:
    """Content terms of ``text``, in order: what answers and relevance match on."""
    return [term(w) for w in content_words(text)]


def index_terms(text: str) -> list[str]:
    """``terms`` plus the joined two-word notions ("shared_memory"): what BM25 indexes."""
    raw = [fold(w) for w in words(text)]
    out: list[str] = []
    for i, w in enumerate(raw):
        if w in STOP_WORDS or (len(w) < 2 and not w.isdigit()):
            continue
        out.append(term(w))
        if i + 1 < len(raw) and (w, raw[i + 1]) in _JOINED:
            out.append(f"{w}_{raw[i + 1]}")
    return out


def normalise_space(text: str) -> str:
    """Runs of spaces (no-break ones included) and line breaks to one space."""
    return " ".join(text.split())
