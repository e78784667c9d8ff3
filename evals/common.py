"""Shared bits of the eval runners: loading YAML sets, writing dated results."""
from __future__ import annotations

import datetime as _dt
import json
import platform
from pathlib import Path

import yaml

from ingest.config import Config
from ingest.corpus import scan_corpus

DATA = Path(__file__).resolve().parent / "data"
RESULTS = Path(__file__).resolve().parent / "results"


def load_set(name: str) -> list[dict]:
    """A question set from ``evals/data/<name>.yaml`` (a list of mappings)."""
    return yaml.safe_load((DATA / f"{name}.yaml").read_text(encoding="utf-8"))


def split_files(stem: str, split: str) -> tuple[str, ...]:
    """The set names (no ``.yaml``) of ``stem``'s ``split``: test is ``<stem>_test``; dev is every
    other ``<stem>.yaml`` / ``<stem>_*.yaml``: each test split, once reported, is renamed
    ``<stem>_dev<N>`` and so joins dev without a list to keep by hand."""
    if split == "test":
        return (f"{stem}_test",) if (DATA / f"{stem}_test.yaml").exists() else ()
    names = [f.stem for f in DATA.glob(f"{stem}*.yaml")
             if f.stem == stem or (f.stem.startswith(stem + "_") and f.stem != f"{stem}_test")]
    return tuple(sorted(names))


def corpus_size(config: Config) -> dict:
    scanned = scan_corpus(config.corpus_dir)
    return {"chapters": len([c for c in scanned.chapters if c.id != "parcours"]),
            "pages": len(scanned.chapters), "broken": len(scanned.errors)}


def write_result(kind: str, payload: dict, markdown: str, out: Path = RESULTS,
                 tag: str = "") -> tuple[Path, Path]:
    """Write ``<kind>-<date><tag>.json`` and ``.md`` under ``out`` and return their paths.

    The payload's own ``date`` and ``machine``, when it has them, win over the defaults.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    today = _dt.date.today().isoformat()
    payload = {"date": today, "machine": f"{platform.machine()}, {_cpu_count()} cœurs", **payload}
    jpath, mpath = out / f"{kind}-{today}{tag}.json", out / f"{kind}-{today}{tag}.md"
    jpath.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    mpath.write_text(markdown.rstrip() + "\n", encoding="utf-8")
    return jpath, mpath


def _cpu_count() -> int:
    import os
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
