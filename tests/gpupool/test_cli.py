"""``tuile pool run``, ``tuile worker``: real processes, French messages, exit codes."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _tuile(*args, timeout=120):
    env = dict(os.environ, TRITON_INTERPRET="1")
    env.pop("TUILE_SCHEDULER", None)
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_pool_run_without_scheduler_runs_here_and_says_where(tmp_path):
    src = tmp_path / "copie.py"
    src.write_text(_tuile("kernel", "template", "copie", "--reference").stdout, encoding="utf-8")
    done = _tuile("pool", "run", str(src), "-e", "copie")
    assert done.returncode == 0, done.stderr
    assert "Exécutée sur\u00a0:" in done.stdout and "Justesse\u00a0: juste" in done.stdout.replace(" :", "\u00a0:")


def test_pool_run_with_the_scheduler_down_fails_fast_in_french(tmp_path):
    src = tmp_path / "copie.py"
    src.write_text("def custom_kernel(x, out):\n    pass\n", encoding="utf-8")
    t = time.monotonic()
    done = _tuile("pool", "run", str(src), "-e", "copie", "--scheduler", "tcp://127.0.0.1:9")
    assert time.monotonic() - t < 20
    assert done.returncode == 2
    assert "Le pool de GPU tcp://127.0.0.1:9 est injoignable" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_usage_errors_are_one_french_line():
    done = _tuile("worker")
    assert done.returncode == 2 and "indiquez le planificateur" in done.stderr
    done = _tuile("pool", "run", "absent.py", "-e", "inconnu")
    assert done.returncode == 2 and done.stderr.startswith("erreur\u00a0:")
    assert "Traceback" not in done.stderr
