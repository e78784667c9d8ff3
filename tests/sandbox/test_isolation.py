"""Each isolation layer of sandbox.jail, tested on its own with a real child process.

These run the child code directly through ``run_isolated`` (no pre-check), so they show
what the runtime layers hold by themselves. Layers the host does not grant are skipped
with the reason ``isolation_layers()`` gives.
"""
from __future__ import annotations

import os
import socket
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from sandbox.jail import (Limits, can_drop_uid, isolation_layers, mark_phase,
                          namespace_flags, run_isolated)

REPO = Path(__file__).resolve().parents[2]
HAS_NS = bool(namespace_flags())
needs_ns = pytest.mark.skipif(not HAS_NS, reason="pas d'espaces de noms sur cet hôte")
FAST = Limits(compile_timeout_s=20, run_timeout_s=20, cpu_time_s=20,
              memory_bytes=1 << 30)


def run_py(tmp_path: Path, code: str, limits: Limits = FAST, env=None):
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    (scratch / "child.py").write_text(textwrap.dedent(code))
    return run_isolated([sys.executable, str(scratch / "child.py")], scratch=scratch,
                        limits=limits, env={"PYTHONPATH": str(REPO), **(env or {})})


def _processes_with(marker: str) -> list[int]:
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != os.getpid():
            try:
                if marker.encode() in Path(f"/proc/{d}/cmdline").read_bytes():
                    found.append(int(d))
            except OSError:
                pass
    return found


def test_plain_run_and_phases(tmp_path):
    r = run_py(tmp_path, """
        from sandbox.jail import mark_phase
        mark_phase("compile"); print("bonjour"); mark_phase("run"); mark_phase("done")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "bonjour"
    assert r.phase == "done" and not r.timed_out and r.killed_reason == ""


def test_mark_phase_outside_sandbox_is_a_no_op():
    mark_phase("compile")


@pytest.mark.parametrize("phase,limits,said", [
    ("compile", Limits(compile_timeout_s=1.0, run_timeout_s=30), "pendant le chargement"),
    ("run", Limits(compile_timeout_s=30, run_timeout_s=1.0), "pendant l'exécution (limite 1\u00a0s)"),
])
def test_compile_and_run_limits_are_separate(tmp_path, phase, limits, said):
    r = run_py(tmp_path, f"""
        import time
        from sandbox.jail import mark_phase
        mark_phase("compile")
        {"mark_phase('run')" if phase == "run" else ""}
        while True: pass
    """, limits)
    assert r.timed_out and r.phase == phase
    assert r.killed_reason.startswith("délai dépassé " + said), r.killed_reason
    assert r.wall_s < 8


def test_no_process_outlives_the_run(tmp_path):
    marker = f"tuile-survivor-{uuid.uuid4().hex}"
    r = run_py(tmp_path, f"""
        import os, sys, time
        for _ in range(2):
            if os.fork() == 0:
                os.setsid()          # leave the process group
                if os.fork() == 0:   # and the parent: a daemon
                    os.execv(sys.executable, [sys.executable, "-c",
                             "import time; time.sleep(600)", "{marker}"])
                os._exit(0)
        time.sleep(600)
    """, Limits(compile_timeout_s=3, run_timeout_s=3))
    assert r.timed_out
    time.sleep(0.3)
    assert _processes_with(marker) == []


def test_cpu_time_limit(tmp_path):
    r = run_py(tmp_path, "while True: pass\n",
               Limits(compile_timeout_s=30, cpu_time_s=1))
    assert not r.timed_out
    assert "temps CPU" in r.killed_reason


def test_file_size_limit(tmp_path):
    r = run_py(tmp_path, """
        with open("big.bin", "wb") as f:
            f.write(b"x" * (3 << 20))
    """, Limits(max_file_bytes=1 << 20))
    assert r.returncode != 0
    assert "taille de fichier" in r.killed_reason
    assert (tmp_path / "scratch" / "big.bin").stat().st_size <= 1 << 20


def test_open_files_limit(tmp_path):
    r = run_py(tmp_path, """
        fs = []
        try:
            for i in range(10000): fs.append(open("/dev/null"))
        except OSError as e: print("refusé", len(fs))
    """, Limits(max_open_files=32))
    assert "refusé" in r.stdout and int(r.stdout.split()[-1]) < 32


@pytest.mark.skipif(os.geteuid() != 0 and not HAS_NS, reason="RLIMIT_NPROC ne lie pas root")
def test_fork_bomb_is_bounded(tmp_path):
    r = run_py(tmp_path, """
        import os, time
        n = 0
        try:
            for _ in range(1000):
                if os.fork() == 0:
                    time.sleep(30); os._exit(0)
                n += 1
        except OSError as e:
            print("bloqué après", n)
    """, Limits(max_processes=16, compile_timeout_s=10))
    assert "bloqué après" in r.stdout
    assert int(r.stdout.split()[-1]) < 16


def test_host_memory_limit(tmp_path):
    # 1 GiB cap, the child asks for 3: CI's 24 GiB machine stays safe either way.
    r = run_py(tmp_path, """
        blocks = []
        for _ in range(48):
            blocks.append(bytearray(64 << 20))
        print("alloué")
    """, Limits(memory_bytes=1 << 30))
    assert "alloué" not in r.stdout
    assert "mémoire" in r.killed_reason


def test_output_is_truncated(tmp_path):
    r = run_py(tmp_path, """
        import sys
        chunk = "x" * (1 << 20)
        for _ in range(200): sys.stdout.write(chunk)
    """, Limits(max_output_bytes=4096))
    assert len(r.stdout) < 4096 + 200
    assert "tronquée" in r.stdout


def test_environment_is_scrubbed(tmp_path, monkeypatch):
    monkeypatch.setenv("TUILE_SECRET_TOKEN", "sk-ne-doit-pas-fuir")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fuite")
    r = run_py(tmp_path, "import os; print(sorted(os.environ.items()))")
    assert "sk-ne-doit-pas-fuir" not in r.stdout and "fuite" not in r.stdout
    assert "TRITON_CACHE_DIR" in r.stdout


@needs_ns
def test_no_network_even_to_loopback(tmp_path):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(5)
    port = srv.getsockname()[1]
    got = []
    t = threading.Thread(target=lambda: got.append(_accept(srv)), daemon=True)
    t.start()
    r = run_py(tmp_path, f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2)
            print("connecté")
        except OSError as e:
            print("refusé", e.errno)
    """)
    t.join()
    srv.close()
    assert "refusé" in r.stdout and got == [None]


def _accept(srv):
    try:
        conn, _ = srv.accept()
        conn.close()
        return "connexion reçue"
    except OSError:
        return None


@needs_ns
def test_filesystem_read_only_and_hidden(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("mot de passe")
    outside = tmp_path / "written-by-child"
    r = run_py(tmp_path, f"""
        import os
        for path in ("{secret}", "/root/.bash_history", "{REPO / 'pyproject.toml'}"):
            try: print("lu", path, open(path).read()[:20])
            except OSError as e: print("refusé lecture", path)
        print("passwd", open("/etc/passwd").read().count(":x:"))
        for path in ("{outside}", "/usr/lib/tuile-x", "/etc/tuile-x", "{REPO}/x"):
            try: open(path, "w").write("x"); print("écrit", path)
            except OSError as e: print("refusé écriture", path)
        open("ok.txt", "w").write("dans scratch")
        import torch, triton
        print("imports ok")
    """)
    assert "lu " not in r.stdout, r.stdout
    assert not [l for l in r.stdout.splitlines() if l.startswith("écrit ")]
    assert "passwd 2" in r.stdout   # the fake one: root and the sandbox user
    assert "imports ok" in r.stdout, r.stderr
    assert not outside.exists() and not (REPO / "x").exists()
    assert (tmp_path / "scratch" / "ok.txt").read_text() == "dans scratch"


@pytest.mark.skipif(not can_drop_uid(), reason="pas de changement d'uid sur cet hôte")
def test_runs_as_an_unprivileged_uid(tmp_path):
    r = run_py(tmp_path, "import os; print(os.getuid(), os.geteuid(), os.getgroups())")
    uid, euid, *_ = r.stdout.split()
    assert int(uid) != 0 and int(euid) != 0


def test_layers_are_described_in_french():
    layers = isolation_layers()
    assert "réseau coupé" in layers and "mémoire de l'hôte" in layers


def test_scratch_total_size_is_capped(tmp_path):
    # Each file stays under RLIMIT_FSIZE (1 MiB) but together they pass the 1 GiB cap.
    r = run_py(tmp_path, """
        import os
        block = os.urandom(1 << 20)
        for i in range(4000):
            with open(f"f{i}.bin", "wb") as f:
                f.write(block[: (1 << 20) - 1])
    """, Limits(max_file_bytes=1 << 20, compile_timeout_s=60))
    assert "espace disque" in r.killed_reason
    used = sum(p.stat().st_size for p in (tmp_path / "scratch").glob("f*.bin"))
    assert used < 3 << 30


def test_scratch_entry_count_is_capped(tmp_path):
    r = run_py(tmp_path, """
        import os
        for i in range(100000):
            os.mkdir(f"d{i}")
    """, Limits(compile_timeout_s=60))
    assert "trop de fichiers" in r.killed_reason
