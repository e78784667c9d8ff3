"""What the jail says when a run ends badly: the process cap, cut output, the phase of a
time-out, a segmentation fault with its line. Real child processes through run_isolated."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from sandbox.jail import Limits, can_drop_uid, isolation_layers, run_isolated

REPO = Path(__file__).resolve().parents[2]
FAST = Limits(compile_timeout_s=20, run_timeout_s=20, cpu_time_s=20, memory_bytes=1 << 30)


def run_py(tmp_path: Path, code: str, limits: Limits = FAST, name: str = "child.py"):
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    (scratch / name).write_text(textwrap.dedent(code))
    return run_isolated([sys.executable, str(scratch / name)], scratch=scratch,
                        limits=limits, env={"PYTHONPATH": str(REPO)})


@pytest.mark.skipif(not can_drop_uid() and "cgroup" not in isolation_layers()["mémoire de l'hôte"],
                    reason="ni uid propre ni cgroup : RLIMIT_NPROC ne borne pas root")
def test_fork_bomb_is_named_as_the_process_limit(tmp_path):
    r = run_py(tmp_path, """
        import os, time
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.01)
    """, Limits(compile_timeout_s=3, run_timeout_s=3, cpu_time_s=20, max_processes=32,
                memory_bytes=1 << 30))
    assert r.process_limit_hit
    assert r.killed_reason.startswith("limite de processus atteinte (32 processus"), r.killed_reason
    assert "délai dépassé" in r.killed_reason   # what stopped it, after the cause
    assert "assertion" not in r.killed_reason


def test_cut_output_is_said_even_when_the_run_passes(tmp_path):
    r = run_py(tmp_path, """
        import sys
        for _ in range(64):
            sys.stdout.write("x" * (1 << 14))
        print("fin")
    """)
    assert r.returncode == 0 and r.killed_reason == ""
    assert r.truncated == ("stdout",)
    assert r.output_note.startswith("La sortie standard de la soumission a été tronquée à 64\u00a0Kio")
    assert "[… sortie tronquée à 65\u202f536 octets]" in r.stdout


def test_endless_python_loop_in_the_call_is_said_to_happen_while_running(tmp_path):
    r = run_py(tmp_path, """
        from sandbox.jail import mark_phase
        mark_phase("compile")
        mark_phase("call")   # loaded; custom_kernel runs, no kernel compiled yet
        while True:
            pass
    """, Limits(compile_timeout_s=2, run_timeout_s=20, cpu_time_s=20, memory_bytes=1 << 30))
    assert r.timed_out and r.phase == "call"
    assert r.killed_reason.startswith("délai dépassé pendant l'exécution de custom_kernel"), \
        r.killed_reason
    assert "(limite 2\u00a0s)" in r.killed_reason and "compile" not in r.killed_reason


def test_phases_only_move_forward(tmp_path):
    """A "call" mark after "run" (the launcher marks every call) keeps the run limit."""
    r = run_py(tmp_path, """
        import time
        from sandbox.jail import mark_phase
        mark_phase("compile"); mark_phase("run"); mark_phase("call"); mark_phase("compile")
        time.sleep(60)
    """, Limits(compile_timeout_s=30, run_timeout_s=1.5, cpu_time_s=20, memory_bytes=1 << 30))
    assert r.timed_out and r.phase == "run"
    assert r.killed_reason.startswith("délai dépassé pendant l'exécution (limite 1,5\u00a0s)")
    assert r.wall_s < 20


def test_segfault_gives_the_line_and_what_it_usually_means(tmp_path):
    r = run_py(tmp_path, """\
        import ctypes


        def charge(adresse):
            return ctypes.c_int.from_address(adresse).value   # line 5: reads address 16


        charge(16)
    """, name="soumission.py")
    assert r.returncode == 128 + 11, (r.returncode, r.stderr[-500:])
    assert "erreur de segmentation (SIGSEGV) à la ligne 5 de la soumission" in r.killed_reason, \
        r.killed_reason
    assert "masque absent ou faux" in r.killed_reason


def test_endless_loop_in_custom_kernel_end_to_end(tmp_path):
    """Through the runner (judge and launcher): the launcher marks "call" before the first
    call, so the compile limit stops the loop but the report says where it was (12 s: torch
    and triton alone take up to 6 s to import on a loaded 2-core machine)."""
    from sandbox.records import RunOptions
    from sandbox.runner import run_submission

    source = ("import triton\nimport triton.language as tl\n\n\ndef custom_kernel(x, out):\n"
              "    while True:\n        pass\n")
    report = run_submission(source, "copie", RunOptions(
        mode="interpreter", all_dtypes=False, compile_timeout_s=12, run_timeout_s=30,
        scratch_root=str(tmp_path)))
    assert report.timed_out and report.error_kind == "timeout", (report.error_kind, report.error)
    assert "pendant l'exécution de custom_kernel" in report.error, report.error
    assert "compile" not in report.error
