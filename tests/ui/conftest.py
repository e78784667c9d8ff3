"""Fixtures of the browser tests: a real index, the app served on loopback, Debian's chromium.

Once per session: a subset of the real guide (four chapters of part 3, Performance, the
transposition case study among them, two of part 1, the reading-path page and data) is
copied into a temporary corpus and ingested with the default embedder into a temporary
``TUILE_HOME`` (well under a minute on 2 cores, against 6 min for the whole guide); the app
from ``create_app`` is launched on a free port of 127.0.0.1. Each test gets a fresh
browser context (its own localStorage), in French.

Chromium is Debian's (/usr/bin/chromium), never a downloaded one; without it the tests
skip with the command that installs it. Screenshots go to artifacts/screenshots/;
``TUILE_UI_FULL=1`` runs them on the whole guide (for the pictures of docs/screenshots/).
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
    "03-performance/01-roofline.md",
    "03-performance/02-acces-coalesces.md",
    "03-performance/05-mesurer-correctement.md",
    "03-performance/07-transposition.md",
    "01-fondations/04-anatomie-d-un-gpu.md",
    "01-fondations/02-de-pytorch-au-noyau.md",
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
    if os.environ.get("TUILE_UI_FULL") == "1":
        # The whole guide, for the screenshots of docs/: starts from the user's index
        # (incremental), so only chapters changed since are encoded.
        from ingest.config import data_dir

        shutil.copytree(ROOT / "corpus", corpus)
        if (data_dir() / "index").is_dir():
            shutil.copytree(data_dir() / "index", home / "index")
    else:
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
    def take(page, name: str, full_page: bool = True) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path
    return take


class ExplodingRunner:
    """A kernel runner with a bug of its own: the UI must show a French message and go on."""

    def __call__(self, source, exercise, options):
        raise RuntimeError("panne simulée du bac à sable")


@pytest.fixture(scope="session")
def broken_server(ui_config, tmp_path_factory):
    """The app with no index at all and a runner that raises: every layer fails."""
    from assistant.ui.app import create_app, launch
    from ingest.config import load_config

    config = load_config(corpus_dir=ui_config.corpus_dir, index_dir=tmp_path_factory.mktemp("sans-index"), llm="")
    app = create_app(config, run_kernel=ExplodingRunner(), warm=False)
    port = _free_port()
    launch(app, host="127.0.0.1", port=port, block=False)
    yield f"http://127.0.0.1:{port}/"
    app.close()


class ReplayRunner:
    """Replays a report measured on a real H200 by the sandbox, so the GPU half of the
    Bac à sable tab is shown in a browser on a machine without GPU. The data file is the
    naive transposition's entry of bench/results/2026-11-29-sandbox-part1-h200.json
    (``tuile kernel run --json`` on the H200, 2026-11-29); only what the runner takes from
    the exercise (goal, bytes note) is added."""

    def __init__(self, name: str):
        import json
        self.data = json.loads((Path(__file__).parent / "data" / name).read_text(encoding="utf-8"))

    def __call__(self, source, exercise, options):
        from sandbox.exercises import get_exercise
        from sandbox.records import KernelReport

        if options.on_position:
            options.on_position(1)      # one submission ahead, then our turn
            time.sleep(1.0)
            options.on_position(0)
        ex = get_exercise(exercise)
        report = KernelReport.from_dict(self.data)
        report.threshold_pct, report.bytes_note, report.peak_source = ex.threshold_pct, ex.bytes_note, "carte"
        return report


@pytest.fixture(scope="session")
def gpu_replay_server(ui_config):
    from assistant.ui.app import create_app, launch
    from assistant.ui.services import Services

    services = Services(ui_config, run_kernel=ReplayRunner("h200-transposition-naive.json"), gpu=True)
    app = create_app(services=services, warm=False)
    port = _free_port()
    launch(app, host="127.0.0.1", port=port, block=False)
    yield f"http://127.0.0.1:{port}/"
    app.close()
