"""Fixtures of the browser tests: a real index, the app served on loopback, Debian's chromium.

Once per session: a subset of the real guide (part 3, Performance, with the transposition
chapter, and a few chapters of parts 1 and 2, plus the reading-path page and data) is
copied into a temporary corpus and ingested with the default embedder into a temporary
``TUILE_HOME`` (about 30 s on 2 cores instead of 3 min for the whole guide); the app
from ``create_app`` is launched on a free port of 127.0.0.1. Each test gets a fresh
browser context (its own localStorage), in French.

Chromium is Debian's (/usr/bin/chromium), never a downloaded one; without it the tests
skip with the command that installs it. Screenshots go to artifacts/screenshots/.
"""
from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("TUILE_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "artifacts" / "screenshots"
SUBSET = (
    "03-performance",
    "01-fondations/01-pourquoi-un-gpu.md",
    "01-fondations/02-de-pytorch-au-noyau.md",
    "01-fondations/04-anatomie-d-un-gpu.md",
    "01-fondations/05-hierarchie-memoire.md",
    "02-programmation/01-grilles-blocs-threads.md",
    "02-programmation/02-premier-noyau.md",
    "parcours.md", "parcours.yaml", "plan.yaml",
)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _copy_subset(src: Path, dst: Path) -> None:
    for rel in SUBSET:
        a, b = src / rel, dst / rel
        if a.is_dir():
            shutil.copytree(a, b)
        elif a.exists():
            b.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(a, b)


@pytest.fixture(scope="session")
def ui_config():
    """A temporary corpus (subset of the real guide) and its index, built once."""
    from ingest.config import load_config
    from ingest.pipeline import ingest

    home = Path(tempfile.mkdtemp(prefix="tuile-ui-"))
    corpus = home / "corpus"
    _copy_subset(ROOT / "corpus", corpus)
    old = {k: os.environ.get(k) for k in ("TUILE_HOME", "TUILE_INDEX", "TUILE_CORPUS", "TUILE_LLM")}
    os.environ.update({"TUILE_HOME": str(home), "TUILE_CORPUS": str(corpus)})
    os.environ.pop("TUILE_INDEX", None)
    os.environ.pop("TUILE_LLM", None)
    config = load_config(corpus_dir=corpus, index_dir=home / "index", llm="")
    result = ingest(config)
    assert not result.errors, result.errors
    yield config
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def server(ui_config):
    """The app of ``create_app`` served on a free loopback port; yields its base URL."""
    from assistant.ui.app import create_app, launch

    app = create_app(ui_config)
    port = _free_port()
    launch(app, host="127.0.0.1", port=port, block=False)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    app.tuile_services.warm()
    yield url
    app.close()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"chromium absent ({CHROMIUM}) : installez-le avec « apt-get install -y chromium » "
                    "ou « ./scripts/setup.sh --browser »")
    from playwright.sync_api import sync_playwright

    # Playwright gives each launch a fresh, empty profile directory (its --user-data-dir).
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    """A fresh page (own storage) on the app, in French, 1280 × 900; records outside requests."""
    context = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.outside_requests = []
    pg.on("request", lambda r: pg.outside_requests.append(r.url)
          if not r.url.startswith(("http://127.0.0.1", "data:", "blob:", "about:")) else None)
    pg.goto(server)
    pg.wait_for_selector("#tuile-question textarea", timeout=30_000)
    yield pg
    context.close()


@pytest.fixture
def shot():
    """``shot(page, name)`` saves a full-page screenshot under artifacts/screenshots/."""
    def take(page, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path
    return take
