"""The attack suite: hostile submissions, each contained with a clear French message and
the host unharmed (issue 9).

Every attack is checked at two layers, so that each layer is shown to hold alone:
- ``test_precheck_refuses``: the static pre-check refuses it with a French message
  (attacks that look like ordinary code, such as an infinite loop, are marked
  ``static=False`` and skip this layer);
- ``test_contained_at_runtime``: the same code runs *without* the pre-check through
  ``run_isolated``, and the host is checked afterwards: the secret file outside scratch
  was not read, the marker file outside scratch was not written, the listener on the
  host's 127.0.0.1 received nothing, no process of the attack is left, output and files
  stayed under their limits.
Then ``test_end_to_end`` sends the attacks that only the runtime can stop through
``runner.run_submission`` and checks the report's French message.

Network attacks target only a listener this test opens on 127.0.0.1; nothing here sends
traffic to any other address. Memory attacks are capped at 1 GiB (runtime layer) and at
the default 8 GiB (end to end), so CI's 24 GiB machine is safe.
"""
from __future__ import annotations

import dataclasses
import os
import socket
import sys
import textwrap
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from sandbox.jail import Limits, namespace_flags, run_isolated
from sandbox.precheck import precheck

REPO = Path(__file__).resolve().parents[2]
HAS_NS = bool(namespace_flags())
FRENCH = ("interdit", "refusé", "dépassé", "tronquée", "délai", "limite", "mémoire")

# The payload every escape tries once it holds a module: read the secret, write outside
# scratch, reach the listener, start a shell.
_PAYLOAD = """
def _payload(os_mod=None):
    try: print("SECRET:", open({secret!r}).read())
    except Exception as e: print("lecture refusée", type(e).__name__)
    try: open({outside!r}, "w").write("touché"); print("ÉCRIT")
    except Exception as e: print("écriture refusée", type(e).__name__)
    try:
        import socket; socket.create_connection(("127.0.0.1", {port}), timeout=2); print("CONNECTÉ")
    except Exception as e: print("réseau refusé", type(e).__name__)
    if os_mod is not None:
        os_mod.system("cat {secret} ; echo touché > {outside}")
"""


@dataclass(frozen=True)
class Attack:
    name: str
    code: str
    static: bool = True          # the pre-check is expected to refuse it
    runtime: bool = True         # run it without the pre-check through run_isolated
    needs_ns: bool = True        # its runtime containment relies on the namespaces
    limits: Limits | None = None
    expect_reason: str = ""      # a word expected in killed_reason at runtime


_L = Limits(compile_timeout_s=8, run_timeout_s=8, cpu_time_s=20, memory_bytes=1 << 30,
            max_processes=32, max_file_bytes=8 << 20, max_output_bytes=64 << 10)
# Attacks whose expected end is not the time limit get room for a slow torch import
# (10 s and more on a loaded 2-core CI machine).
_SLOW = dataclasses.replace(_L, compile_timeout_s=40, run_timeout_s=40, cpu_time_s=60)

ATTACKS = [
    # --- reading outside scratch
    Attack("lire_etc_passwd", "print(open('/etc/passwd').read())"),
    Attack("lire_secret_hors_scratch", "print(open({secret!r}).read())"),
    Attack("lire_via_pathlib", "import pathlib\nprint(pathlib.Path({secret!r}).read_text())"),
    Attack("lire_via_torch_from_file",
           "import torch\nprint(bytes(torch.from_file({secret!r}, size=16, dtype=torch.uint8).tolist()))"),
    Attack("lire_proc_environ_hote", "print(open('/proc/1/environ').read())"),
    # --- writing outside scratch
    Attack("ecrire_hors_scratch", "open({outside!r}, 'w').write('x')"),
    Attack("ecrire_via_torch_save", "import torch\ntorch.save(torch.zeros(4), {outside!r})"),
    # --- network (loopback listener of the test only)
    Attack("socket_vers_127", "import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('CONNECTÉ')"),
    Attack("reseau_via_torch_distributed",
           "import torch\nimport torch.distributed as dist\n"
           "dist.TCPStore('127.0.0.1', {port}, 2, False, timeout=__import__('datetime').timedelta(seconds=2))\nprint('CONNECTÉ')"),
    # --- processes
    Attack("shell_subprocess", "import subprocess\nprint(subprocess.run('cat {secret}; touch {outside}', shell=True))"),
    Attack("os_system", "import os\nos.system('cat {secret}; touch {outside}')"),
    Attack("bombe_fork", "import os\nwhile True:\n    try: os.fork()\n    except OSError: pass",
           limits=Limits(compile_timeout_s=4, run_timeout_s=4, max_processes=32), needs_ns=False,
           expect_reason="délai"),
    Attack("processus_survivant",
           "import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n"
           "    os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(600)', '{marker}'])\n"
           "time.sleep(600)", limits=Limits(compile_timeout_s=3, run_timeout_s=3), needs_ns=False,
           expect_reason="délai"),
    # --- denial of service that only the runtime can stop
    Attack("boucle_infinie_python", "while True:\n    pass", static=False, needs_ns=False,
           limits=Limits(compile_timeout_s=3, run_timeout_s=3), expect_reason="délai"),
    Attack("boucle_infinie_noyau_interprete",
           "import torch, triton, triton.language as tl\n@triton.jit\ndef k(x):\n"
           "    i = tl.abs(tl.load(x)) + 1.0\n    while i > 0:\n        i = i * 1.0000001\n"
           "k[(1,)](torch.zeros(1))",
           static=False, needs_ns=False, limits=Limits(compile_timeout_s=10, run_timeout_s=10),
           expect_reason="délai"),
    Attack("memoire_hote", "blocs = []\nwhile True:\n    blocs.append(bytearray(64 << 20))",
           static=False, needs_ns=False, limits=_SLOW, expect_reason="mémoire"),
    Attack("memoire_via_torch", "import torch\nb = []\nfor _ in range(64):\n    b.append(torch.ones(1 << 24))",
           static=False, needs_ns=False, limits=_SLOW, expect_reason="mémoire"),
    Attack("remplir_disque", "with open('gros.bin', 'wb') as f:\n    while True: f.write(b'x' * (1 << 20))",
           needs_ns=False, limits=_SLOW, expect_reason="taille de fichier"),
    Attack("remplir_disque_torch", "import torch\ntorch.save(torch.zeros(1 << 24), 'gros.pt')",
           needs_ns=False, limits=_SLOW, expect_reason="taille de fichier"),
    Attack("afficher_des_gigaoctets", "import sys\nfor _ in range(4096):\n    sys.stdout.write('x' * (1 << 20))",
           static=False, needs_ns=False),
    # --- indirect imports of os / sys / ctypes
    Attack("getattr_builtins_import", "m = getattr(__builtins__, '__import__')('os')\n_payload(m)"),
    Attack("builtins_dict", "b = __builtins__ if isinstance(__builtins__, dict) else __builtins__.__dict__\n"
                            "_payload(b['__import__']('os'))"),
    Attack("dunder_import_ctypes", "c = __import__('ctypes')\nc.CDLL(None).system(b'touch {outside}')"),
    Attack("importlib", "import importlib\n_payload(importlib.import_module('os'))"),
    Attack("import_sys_modules", "import sys\n_payload(sys.modules['os'])"),
    Attack("getattr_nom_calcule", "import torch\nm = getattr(torch, 'o' + 's')\n_payload(m)"),
    Attack("torch_sys_modules", "import torch\n_payload(torch.sys.modules['os'])"),
    Attack("triton_module_os", "import triton.runtime.jit as j\n_payload(j.os)"),
    Attack("sous_classes", "for c in ().__class__.__base__.__subclasses__():\n"
                           "    if c.__name__ == '_wrap_close':\n        _payload(c.__init__.__globals__['sys'].modules['os'])"),
    Attack("globals_de_fonction", "def f(): pass\n_payload(f.__globals__['__builtins__']['__import__']('os'))"),
    Attack("chaine_de_format", "def f(): pass\nprint('{{0.__globals__}}'.format(f))\n_payload()"),
    Attack("exec_eval", "exec('import os')\n_payload(eval('os'))"),
    Attack("compile_code", "code = compile('import os', 'x', 'exec')\nns = {{}}\nexec(code, ns)\n_payload(ns['os'])"),
    Attack("vars_module", "import torch\n_payload(vars(torch)['os'])"),
    Attack("prive_torch_C", "import torch\nprint(torch._C._cuda_getDeviceCount)\n_payload()"),
    Attack("cpp_extension", "from torch.utils import cpp_extension\n_payload()"),
    # --- patching the timer or the checker (in-process: only the pre-check stops these;
    #     the worker's impossible-time check is the backstop)
    Attack("patch_timer_event", "import torch\ntorch.cuda.Event = object", runtime=False),
    Attack("patch_do_bench", "import triton.testing\ntriton.testing.do_bench = lambda *a, **k: 1e-6", runtime=False),
    Attack("patch_checker", "import torch\ntorch.allclose = lambda *a, **k: True\ntorch.testing.assert_close = lambda *a, **k: None", runtime=False),
    Attack("patch_via_setattr", "import torch\nsetattr(torch.cuda, 'synchronize', lambda: None)", runtime=False),
    Attack("patch_via_alias", "import torch as t\nc = t.cuda\nc.synchronize = lambda: None", runtime=False),
    Attack("patch_tensor_methode", "import torch\ntorch.Tensor.__eq__ = lambda a, b: True", runtime=False),
]


def test_at_least_thirty_attacks():
    assert len(ATTACKS) >= 30
    assert len({a.name for a in ATTACKS}) == len(ATTACKS)


@pytest.fixture
def host(tmp_path):
    """Host-side bait: a secret outside scratch, a path that must stay unwritten, and a
    loopback listener that records any connection."""
    secret = tmp_path / "secret-hote.txt"
    token = f"JETON-{uuid.uuid4().hex}"
    secret.write_text(token)
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    hits: list[str] = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                hits.append("connexion")
                conn.close()
            except OSError:
                pass
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    bait = {"secret": str(secret), "token": token, "outside": str(tmp_path / "ecrit-hors-scratch"),
            "port": srv.getsockname()[1], "marker": f"tuile-attaque-{uuid.uuid4().hex}",
            "hits": hits}
    yield bait
    stop.set()
    t.join()
    srv.close()


def _source(attack: Attack, bait: dict) -> str:
    fill = {k: bait[k] for k in ("secret", "outside", "port", "marker")}
    return _PAYLOAD.format(**fill) + attack.code.format(**fill) + "\n"


@pytest.mark.parametrize("attack", [a for a in ATTACKS if a.static], ids=lambda a: a.name)
def test_precheck_refuses(attack, host):
    problems = precheck(attack.code.format(**{k: host[k] for k in ("secret", "outside", "port", "marker")}))
    assert problems, f"{attack.name} passe le pré-contrôle"
    for p in problems:
        assert p.line >= 1
        assert any(w in p.message for w in FRENCH), p.message
        assert any(c in p.message for c in "éèàùç«"), p.message   # French, with accents


def _processes_with(marker: str) -> list[int]:
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{d}/cmdline").read_bytes():
                    found.append(int(d))
            except OSError:
                pass
    return found


@pytest.mark.parametrize("attack", [a for a in ATTACKS if a.runtime], ids=lambda a: a.name)
def test_contained_at_runtime(attack, host, tmp_path):
    if attack.needs_ns and not HAS_NS:
        pytest.skip("pas d'espaces de noms ici : seul le pré-contrôle protège de cette attaque")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "soumission.py").write_text(_source(attack, host))
    limits = attack.limits or _L
    t0 = time.monotonic()
    r = run_isolated([sys.executable, str(scratch / "soumission.py")], scratch=scratch,
                     limits=limits, env={"PYTHONPATH": str(REPO), "TRITON_INTERPRET": "1"})
    time.sleep(0.2)
    everything = r.stdout + r.stderr + "".join(
        p.read_text(errors="replace") for p in scratch.rglob("*") if p.is_file()
        and p.stat().st_size < 1 << 20)
    # the host is unharmed
    assert host["token"] not in everything, "le secret de l'hôte a fui"
    assert "root:x:0:0:root:/root" not in everything, "le vrai /etc/passwd a fui"
    assert not Path(host["outside"]).exists(), "écriture hors de scratch"
    assert host["hits"] == [], "connexion reçue sur 127.0.0.1"
    assert "CONNECTÉ" not in r.stdout
    assert _processes_with(host["marker"]) == [], "un processus a survécu"
    assert sum(p.stat().st_size for p in scratch.rglob("*") if p.is_file()) \
        <= limits.max_file_bytes + (1 << 20)
    assert len(r.stdout) <= limits.max_output_bytes + 200
    assert time.monotonic() - t0 < limits.compile_timeout_s + limits.run_timeout_s + 15
    if attack.expect_reason:
        assert attack.expect_reason in r.killed_reason, (r.killed_reason, r.stderr[-500:])
        assert any(c in r.killed_reason for c in "éèàù"), r.killed_reason


# ---------------------------------------------------------------- end to end

_E2E = {
    "boucle_infinie_python": ("def custom_kernel(x, out):\n    while True:\n        pass\n", "timeout"),
    "boucle_infinie_noyau": (
        "import torch, triton, triton.language as tl\n@triton.jit\ndef k(x_ptr, o_ptr):\n"
        "    i = tl.abs(tl.load(x_ptr)) + 1.0\n    while i > 0:\n        i = i * 1.0000001\n    tl.store(o_ptr, i)\n"
        "def custom_kernel(x, out):\n    k[(1,)](x, out)\n", "timeout"),
    # The worker catches the allocation error itself and reports it as a runtime error.
    "memoire_hote": ("import torch\nblocs = []\ndef custom_kernel(x, out):\n"
                     "    for _ in range(64):\n        blocs.append(torch.ones(1 << 26))\n",
                     ("runtime", "crashed")),
    "afficher_des_gigaoctets": ("def custom_kernel(x, out):\n    while True:\n"
                                "        print('x' * (1 << 20))\n", "timeout"),
    "lire_etc_passwd": ("print(open('/etc/passwd').read())\ndef custom_kernel(x, out):\n    pass\n",
                        "precheck"),
    "import_indirect": ("m = getattr(__builtins__, '__import__')('os')\n"
                        "def custom_kernel(x, out):\n    pass\n", "precheck"),
    "patch_checker": ("import torch\ntorch.allclose = lambda *a, **k: True\n"
                      "def custom_kernel(x, out):\n    pass\n", "precheck"),
}


@pytest.mark.parametrize("name", sorted(_E2E))
def test_end_to_end(name, tmp_path, monkeypatch):
    runner = pytest.importorskip("sandbox.runner")
    # The runner uses the default limits (8 GiB); cap them to 1 GiB for CI's sake.
    monkeypatch.setenv("TUILE_SANDBOX_MAX_MEMORY", str(1 << 30))
    from sandbox.records import RunOptions

    source, kind = _E2E[name]
    t0 = time.monotonic()
    slow = kind != "timeout"   # room for a slow start when the time limit is not the point
    report = runner.run_submission(source, "copie", RunOptions(
        mode="interpreter", all_dtypes=False, compile_timeout_s=40 if slow else 12,
        run_timeout_s=40 if slow else 6,
        scratch_root=str(tmp_path)))
    assert not report.correct
    assert report.error, report
    if kind == ("runtime", "crashed"):
        assert report.error_kind in kind and "mémoire de l'hôte" in report.error, report.error
        assert "allocate" not in report.error, report.error   # torch's English text, translated
    elif kind:
        assert report.error_kind == kind, (report.error_kind, report.error)
        assert any(c in report.error for c in "éèàùç«"), report.error
    assert time.monotonic() - t0 < 90
    assert len(report.stderr_tail) <= 4000


# ---------------------------------------------------------------- on the GPU (H200)

def _cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


_COPY_OK = """
import torch, triton, triton.language as tl
@triton.jit
def _copie(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)
def custom_kernel(x, out):
    n = x.numel()
    _copie[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024, num_warps=8)
"""

_GPU_ATTACKS = {
    "boucle_infinie_noyau_gpu": (
        "import torch, triton, triton.language as tl\n@triton.jit\ndef k(x_ptr, o_ptr):\n"
        "    i = tl.abs(tl.load(x_ptr)) + 1.0\n    while i > 0:\n        i = i * 1.0000001\n    tl.store(o_ptr, i)\n"
        "def custom_kernel(x, out):\n    k[(1,)](x, out)\n", ("timeout",)),
    "memoire_gpu_entiere": (
        "import torch\nblocs = []\ndef custom_kernel(x, out):\n    while True:\n"
        "        blocs.append(torch.empty(1 << 33, dtype=torch.uint8, device='cuda'))\n",
        ("runtime", "crashed")),
    "memoire_hote_epinglee": (
        "import torch\nblocs = []\ndef custom_kernel(x, out):\n    for _ in range(64):\n"
        "        blocs.append(torch.ones(1 << 28, dtype=torch.uint8, pin_memory=True))\n",
        ("runtime", "crashed")),
    "boucle_python_en_tenant_le_gpu": (
        "import torch\ndef custom_kernel(x, out):\n    while True:\n        pass\n", ("timeout",)),
}


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda(), reason="pas de GPU CUDA")
@pytest.mark.parametrize("name", sorted(_GPU_ATTACKS))
def test_gpu_attack_contained_and_gpu_usable_after(name, tmp_path):
    from sandbox.records import RunOptions
    from sandbox.runner import run_submission

    source, kinds = _GPU_ATTACKS[name]
    t0 = time.monotonic()
    report = run_submission(source, "copie", RunOptions(
        mode="gpu", all_dtypes=False, timing=False, compile_timeout_s=20, run_timeout_s=8,
        scratch_root=str(tmp_path)))
    assert not report.correct and report.error_kind in kinds, (report.error_kind, report.error)
    assert report.error
    assert time.monotonic() - t0 < 60
    # The GPU is free and sound afterwards: a good submission runs and is timed.
    ok = run_submission(_COPY_OK, "copie", RunOptions(mode="gpu", all_dtypes=False,
                                                       scratch_root=str(tmp_path)))
    assert ok.correct and ok.gbps, (ok.error_kind, ok.error)


# ---------------------------------------------------------------- no false alarms

_ORDINARY = '''
import math
import functools
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=4),
                          triton.Config({"BLOCK": 128}, num_warps=8)], key=["M", "N"])
@triton.heuristics({"EVEN": lambda args: args["M"] % args["BLOCK"] == 0})
@triton.jit
def _noyau(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask, other=0.0)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in tl.static_range(2):
        acc += tl.math.exp(x.to(tl.float32)) * 0.0
    tl.store(y_ptr + rn[:, None] * stride_ym + rm[None, :], tl.trans(x + acc.to(x.dtype)),
             mask=tl.trans(mask))


def custom_kernel(x, out):
    M, N = x.shape
    assert x.is_contiguous() and out.dtype == x.dtype, f"forme {x.shape}"
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK"]), triton.cdiv(N, meta["BLOCK"]))
    _noyau[grid](x, out, M, N, x.stride(0), out.stride(0))
    return out


if __name__ == "__main__":
    print(math.prod([2, 3]), functools.reduce(lambda a, b: a + b, [1, 2]))
'''


def test_ordinary_kernels_pass_precheck():
    assert precheck(_ORDINARY) == []
    exercises = pytest.importorskip("sandbox.exercises")
    for ex in exercises.list_exercises():
        for kind in ("template", "reference", "naive"):
            try:
                source = ex.source(kind)
            except OSError:
                continue
            assert precheck(source) == [], (ex.name, kind, precheck(source))
