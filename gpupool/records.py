"""The record of one kernel run through a backend: plain dataclass, JSON as it is."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from sandbox.records import KernelReport


@dataclass
class PoolRun:
    report: KernelReport | None          # None only when nothing could run it (``error``)
    backend: str = "local"
    host: str = ""                       # the host whose sandbox judged it
    worker: str = ""                     # the Dask worker's name; "" when local
    card: str = ""                       # the card's name as the host reads it
    gpu: str = ""                        # the GPU index on that host, when known
    attempts: int = 1                    # 2: its host was lost and it ran again elsewhere
    position_at_arrival: int = 0         # submissions ahead of it when it arrived
    waited_s: float = 0.0                # in the queues, before a host started it
    key: str = ""                        # the task key: one result per key
    started_at: float | None = None      # on the host that ran it (epoch s, its clock)
    ended_at: float | None = None
    notices: list[str] = field(default_factory=list)   # French, shown to the user
    error: str = ""                      # French: why no host could run it

    @property
    def where(self) -> str:
        """« hôte · GPU 1 (NVIDIA H200) » in French, for the UI and the CLI."""
        parts = [self.host or "?"]
        if self.gpu != "":
            parts.append(f"GPU {self.gpu}")
        text = " · ".join(parts)
        return f"{text} ({self.card})" if self.card else text

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["where"] = self.where
        return data

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)
