"""What the web UI calls: the library's public entries, gathered once per app.

``Services`` holds the configuration, the guide (``Library``), one warm ``Retriever``
shared by the Discussion and Le guide tabs, the reading-path dialogue and the kernel
backend (``gpupool``: this host, or the Dask pool of GPU hosts). Tests and the benchmark pass their own (a temporary index, a fake runner);
nothing here holds logic of its own beyond "load once, reuse".
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Callable

from assistant.typography import fr_typography
from ingest.config import Config, load_config
from ingest.errors import TuileError

log = logging.getLogger("tuile.ui")


def french_error(err: BaseException) -> str:
    """A readable French message for any error of any layer; the traceback goes to the log."""
    if isinstance(err, TuileError):
        return fr_typography(str(err))
    log.exception("erreur dans l'interface", exc_info=err)
    return fr_typography(f"erreur inattendue ({type(err).__name__} : {err}). Le serveur continue de "
                         "fonctionner ; réessayez, ou signalez l'erreur si elle se reproduit.")


@dataclass
class Services:
    config: Config = field(default_factory=load_config)
    generator: object = None            # None: the configured one (composed by default)
    run_kernel: Callable | None = None  # default: sandbox.runner.run_submission
    gpu: bool | None = None             # None: ask the runner whether a GPU is there
    _retriever: object = None
    _dialogue: object = None
    _library: object = None
    _backend: object = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def library(self):
        if self._library is None:
            from assistant.ui.library import Library
            self._library = Library(self.config.corpus_dir)
        return self._library

    @property
    def retriever(self):
        with self._lock:
            if self._retriever is None:
                from assistant.search.retrieve import Retriever
                self._retriever = Retriever(self.config)
            return self._retriever

    @property
    def dialogue(self):
        if self._dialogue is None:
            from assistant.paths import PathDialogue
            self._dialogue = PathDialogue(self.config.corpus_dir)
        return self._dialogue

    def warm(self) -> None:
        """Load the embedder and the index now (≈1 s), so the first question is answered fast."""
        try:
            self.retriever.search("warp", k=1)
        except Exception as err:  # a missing index is reported when a question is asked
            log.warning("préchauffage impossible : %s", err)

    def browser_secret(self) -> str:
        """The key that encrypts what the app keeps in the browser (reading-path progress).

        Kept in the data directory, so progress survives a restart of the server; a
        random one per run when that directory cannot be written."""
        import secrets
        from ingest.config import data_dir

        path = data_dir() / "ui-secret"
        try:
            if path.exists():
                return path.read_text(encoding="utf-8").strip()
            path.parent.mkdir(parents=True, exist_ok=True)
            value = secrets.token_urlsafe(24)
            path.write_text(value, encoding="utf-8")
            path.chmod(0o600)
            return value
        except OSError:
            return secrets.token_urlsafe(24)

    def llm_label(self) -> str:
        """"" when answers are composed from the guide, else the generator's spec."""
        gen = self.generator
        if gen is None:
            return self.config.llm or ""
        if isinstance(gen, str):
            return "" if gen == "composed" else gen
        return "" if getattr(gen, "name", "") == "composed" else getattr(gen, "name", "")

    def gpu_present(self) -> bool:
        if self.gpu is not None:
            return self.gpu
        from sandbox.runner import gpu_present   # the test that picks GPU or interpreter mode

        return bool(gpu_present())

    def kernel_backend(self):
        """Where kernel runs go (``gpupool``): the Dask pool when ``config.scheduler`` is
        set, else this host; a ``run_kernel`` given to the app runs locally, as the runner."""
        with self._lock:
            if self._backend is None:
                from gpupool import get_backend

                if self.run_kernel is not None:
                    self._backend = get_backend("local", run=self.run_kernel)
                else:
                    self._backend = get_backend(None, scheduler=self.config.scheduler)
            return self._backend
