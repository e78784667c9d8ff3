"""The static pre-check against string routes and other bypasses, and against false alarms.

``BYPASSES`` is our own list of attempts to reach a module, a file, the interpreter's
internals or the timer through a route the pre-check could miss (names built at run time,
builtins passed as values, operator's getters, aliases, assignment forms). None is run
here: the pre-check reads source only. The figure in ``sandbox/precheck.py``'s docstring
(refused / attempts) is this list's. Every template and solution of the exercises, and the
adversarial kernels that the runtime checks must catch, still pass.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.precheck import precheck

REPO = Path(__file__).resolve().parents[2]
FRENCH = ("interdit", "ne s'emploie", "n'est permis")

# name -> source. Each line of the docstring above applies: never executed.
BYPASSES = {
    "attrgetter_nom_calcule": "import operator, torch\nm = operator.attrgetter('o' + 's')(torch)\nm.system('id')",
    "attrgetter_pointe": "import operator, torch\nmods = operator.attrgetter('sys.modules')(torch)",
    "attrgetter_importe": "from operator import attrgetter as ag\nimport torch\nag(''.join(['o', 's']))(torch)",
    "attrgetter_passe_en_valeur": "import operator, torch\nf = operator.attrgetter\nf('o' + 's')(torch)",
    "methodcaller_nom_calcule": "import operator\ncall = operator.methodcaller(''.join(['sys', 'tem']), 'id')",
    "itemgetter_cle_calculee": "import operator, functools, torch\n"
                               "d = functools.reduce(getattr, ['sy' + 's', 'mod' + 'ules'], torch)\n"
                               "m = operator.itemgetter('o' + 's')(d)",
    "getattr_renomme": "import torch\ng = getattr\nm = g(torch, 'o' + 's')",
    "getattr_dans_reduce": "import functools, torch\nm = functools.reduce(getattr, ['sys', 'modules'], torch)",
    "getattr_dans_partial": "import functools, torch\nm = functools.partial(getattr, torch)('o' + 's')",
    "getattr_dans_map": "import torch\nm = list(map(getattr, [torch], ['o' + 's']))[0]",
    "getattr_nom_litteral_load": "import torch\ngetattr(torch, 'load')('/etc/hostname')",
    "getattr_hub": "import torch\ngetattr(torch, 'hub').load('x/y', 'modele')",
    "getattr_nom_en_mot_cle": "import torch\nnom = 'os'\ngetattr(torch, *[nom])",
    "alias_de_module_load": "import torch\nt = torch\nt.load('/etc/hostname')",
    "alias_morse_hub": "import torch\nif (t := torch):\n    t.hub.list('x/y')",
    "alias_en_chaine": "import torch\na = torch\nb = a\nb.serialization.default_restore_location",
    "attribut_open": "import torch\nf = torch.serialization.tarfile.open('/etc/hostname')",
    "attribut_exec_de_nimporte_quoi": "import triton\nm = triton.runtime.jit\nm.exec('x = 1')",
    "attribut_setattr_de_nimporte_quoi": "import torch\nb = torch.nn.functional\nb.setattr(torch.cuda, 'synchronize', None)",
    "get_type_hints_evalue_une_chaine": "import typing\ndef f(x: \"open('/etc/hostname').read()\"): pass\ntyping.get_type_hints(f)",
    "get_type_hints_importe": "from typing import get_type_hints as g\ndef f(x: \"open('/etc/hostname')\"): pass\ng(f)",
    "for_remplace_le_chronometre": "import torch\nfor torch.cuda.Event.elapsed_time in [lambda *a: 1e-3]:\n    pass",
    "with_remplace_le_chronometre": "import torch\nclass C:\n    def __enter__(self): return lambda *a: 1e-3\n"
                                    "    def __exit__(self, *a): pass\n"
                                    "with C() as torch.cuda.Event.elapsed_time:\n    pass",
    "comprehension_remplace_synchronize": "import torch\n[0 for torch.cuda.synchronize in [lambda: None]]",
    "etoile_remplace_do_bench": "import triton.testing\n*triton.testing.do_bench, = [lambda *a, **k: 1e-3]",
    "chaine_de_format_vers_sys": "import torch\nprint('{0.sys.modules}'.format(torch))",
    "cudart_memoire_brute": "import torch\nrt = torch.cuda.cudart()\nrt.cudaMemset(0, 0, 1)",
    "torch_package_charge_du_code": "import torch\nimp = torch.package.PackageImporter('/etc/hostname')",
    "graphe_cuda_hors_chronometre": "import torch\ng = torch.cuda.CUDAGraph()",
    "import_module_par_attribut": "import torch\nlib = getattr(torch, 'serialization')\nlib.importlib.import_module('os')",
}


def test_at_least_twenty_bypasses():
    assert len(BYPASSES) >= 20


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_bypass_refused(name):
    problems = precheck(BYPASSES[name])
    assert problems, f"{name} passe le pré-contrôle"
    for p in problems:
        assert p.line >= 1
        assert any(w in p.message for w in FRENCH), p.message


def test_the_docstring_figure_is_this_list():
    import sandbox.precheck as pc

    refused = sum(bool(precheck(src)) for src in BYPASSES.values())
    assert f"refuses {refused} of {len(BYPASSES)}" in pc.__doc__
    assert f"list of {len(BYPASSES)} bypass attempts" in pc.__doc__.replace("\n", " ")
    assert "defence in depth" in pc.__doc__


LEGITIMATE = {
    "getattr_litteral": "import torch\ndef custom_kernel(x, out):\n    n = getattr(x, 'shape')[0]\n    return out",
    "getattr_tl_load": "import triton.language as tl\nf = getattr(tl, 'load')",
    "itemgetter_entier": "import operator\nfirst = operator.itemgetter(0)\nprint(first([3, 4]))",
    "attrgetter_litteral": "import operator\nshape = operator.attrgetter('shape')",
    "alias_de_module": "import torch\nt = torch\ny = t.empty(4)",
    "format_ordinaire": "x = 3.14159\nprint('{:.2f} {0} {name}'.format(x, name='n'))",
    "format_attribut_public": "import torch\nx = torch.zeros(2)\nprint('{0.shape}'.format(x))",
    "flux_et_boucles": "import torch\ns = torch.cuda.Stream()\nwith torch.cuda.stream(s):\n    for i in range(3):\n        pass\n"
                       "ys = [k for k in range(4)]\nif (n := len(ys)) > 2:\n    pass",
    "reaffecter_une_variable_tiree_dun_module": "import triton\ngrid = triton.cdiv\ngrid = (1, 1)",
}


@pytest.mark.parametrize("name", sorted(LEGITIMATE))
def test_legitimate_code_passes(name):
    assert precheck(LEGITIMATE[name]) == [], precheck(LEGITIMATE[name])


def _exercise_files() -> list[Path]:
    root = REPO / "sandbox" / "exercises" / "files"
    return sorted(p for p in root.rglob("*.py") if p.name != "__init__.py")


def test_every_exercise_file_passes():
    files = _exercise_files()
    assert len(files) >= 21   # 7 exercises × template, reference, naive
    for path in files:
        assert precheck(path.read_text(encoding="utf-8")) == [], path.relative_to(REPO)


def test_runtime_adversarial_kernels_still_reach_the_runtime_checks():
    """These cheat at run time (reused result, side stream, input overwritten …): the
    pre-check must let them through, so that the worker's checks are what is tested."""
    kernels = sorted((REPO / "tests" / "sandbox" / "kernels").glob("adv_*.py"))
    assert kernels
    for path in kernels:
        assert precheck(path.read_text(encoding="utf-8")) == [], path.name


def test_syntax_error_message_in_french():
    [p] = precheck("def custom_kernel(x, out)\n    return out\n")
    assert p.line == 1 and "il manque" in p.message and "expected" not in p.message
