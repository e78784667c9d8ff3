"""Static pre-check of a submitted kernel, before anything of it runs.

Public entry: ``precheck(source) -> list[Problem]``: an empty list means nothing
suspicious was found; each ``Problem`` has the line and a French message that names
what was refused and what is allowed.

It reads the code's syntax tree only (nothing is imported or executed) and refuses what
a Triton kernel never needs: imports beyond triton, torch, math and a few harmless
standard modules; the builtins that open files, run code or reach modules (``open``,
``exec``, ``eval``, ``compile``, ``__import__``, ``getattr`` with a computed or private
name …); dunder escapes (``__globals__``, ``__subclasses__``, ``__builtins__`` …);
reaching the host through modules that torch or triton happen to carry (``torch.sys``,
``torch.utils.cpp_extension``, ``torch.load`` …); and patching torch, triton or math
(the timer and the checker live there).

This is defence in depth, not the boundary: Python offers too many paths to close them
all statically. ``jail.run_isolated`` is the boundary.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

ALLOWED_IMPORTS = ("triton", "triton.language", "triton.language.extra", "triton.testing",
                   "torch", "math", "typing", "functools", "itertools", "operator",
                   "dataclasses", "collections", "enum", "numbers", "__future__")
_ALLOWED_PREFIXES = ("triton.language.",)   # triton.language.extra.cuda.libdevice …
_FORBIDDEN_CALLS = {
    "open": "ouvrir un fichier",
    "exec": "exécuter du code construit à la volée",
    "eval": "évaluer du code construit à la volée",
    "compile": "compiler du code Python à la volée",
    "__import__": "importer un module dynamiquement",
    "globals": "lire les variables globales de l'interpréteur",
    "locals": "lire les variables locales de l'interpréteur",
    "vars": "lire le dictionnaire interne d'un objet",
    "breakpoint": "ouvrir le débogueur",
    "memoryview": "lire la mémoire brute d'un objet",
    "setattr": "modifier un attribut par son nom",
    "delattr": "supprimer un attribut par son nom",
}
_NAME_ATTR_CALLS = ("getattr", "hasattr")
# Attribute names that lead from torch/triton objects to the host or to frames.
_FORBIDDEN_ATTRS = {
    "os", "sys", "subprocess", "ctypes", "socket", "builtins", "importlib", "io",
    "pathlib", "shutil", "pickle", "marshal", "inspect", "gc", "signal", "threading",
    "multiprocessing", "runpy", "types", "posix", "environ", "system", "popen",
    "f_globals", "f_locals", "f_back", "f_builtins", "f_code", "gi_frame", "cr_frame",
    "ag_frame", "tb_frame", "co_code", "modules", "from_file", "fromfile", "tofile",
    "load_library", "load_inline", "cpp_extension",
}
_FORBIDDEN_CHAINS = {
    "torch.load": "charge un fichier (pickle, exécution de code)",
    "torch.save": "écrit un fichier",
    "torch.jit.load": "charge un fichier",
    "torch.utils": "donne accès aux extensions C++ et au système",
    "torch.ops": "charge des bibliothèques natives",
    "torch.classes": "charge des bibliothèques natives",
    "torch.hub": "télécharge et exécute du code",
    "torch.library": "enregistre des opérateurs natifs",
    "torch.compile": "lance un compilateur et des processus",
    "torch.multiprocessing": "lance des processus",
    "torch.distributed": "ouvre des connexions réseau",
    "torch.cuda.memory": "modifie l'allocateur",
    "triton.runtime.build": "lance un compilateur C",
    "triton.tools": "outils hors d'un noyau",
}
_PROTECTED_ROOTS = ("torch", "triton", "math")   # their attributes are never assigned
_DUNDER = re.compile(r"__\w+__")
_ALLOWED_DUNDER_NAMES = {"__name__"}


@dataclass(frozen=True)
class Problem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"ligne {self.line} : {self.message}"


def precheck(source: str) -> list[Problem]:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [Problem(exc.lineno or 0, f"erreur de syntaxe : {exc.msg}")]
    except (ValueError, MemoryError, RecursionError) as exc:
        return [Problem(0, f"code illisible : {exc}")]
    checker = _Checker()
    checker.visit(tree)
    seen, out = set(), []
    for p in sorted(checker.problems, key=lambda p: p.line):
        if (p.line, p.message) not in seen:
            seen.add((p.line, p.message))
            out.append(p)
    return out


def _allowed_import(name: str) -> bool:
    return name in ALLOWED_IMPORTS or name.startswith(_ALLOWED_PREFIXES)


class _Checker(ast.NodeVisitor):
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.aliases: dict[str, str] = {}   # local name -> module path it stands for

    def _add(self, node: ast.AST, message: str) -> None:
        self.problems.append(Problem(getattr(node, "lineno", 0), message))

    # ---- imports
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not _allowed_import(alias.name):
                self._refuse_import(node, alias.name)
            else:
                local = alias.asname or alias.name.split(".")[0]
                self.aliases[local] = alias.name if alias.asname else local
                self._check_chain(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        if node.level or not _allowed_import(mod):
            self._refuse_import(node, "." * node.level + mod)
            return
        for alias in node.names:
            full = f"{mod}.{alias.name}"
            if alias.name == "*":
                self._add(node, f"« from {mod} import * » est interdit : importez les noms "
                                "dont le noyau a besoin, un par un")
                continue
            if alias.name.startswith("_") or alias.name in _FORBIDDEN_ATTRS:
                self._add(node, f"import de « {full} » interdit : ce nom donne accès au "
                                "système, pas au calcul")
                continue
            self.aliases[alias.asname or alias.name] = full
            self._check_chain(node, full)

    def _refuse_import(self, node: ast.AST, name: str) -> None:
        self._add(node, f"import de « {name} » interdit : un noyau n'importe que "
                        "triton, triton.language, torch, math (et typing, functools, "
                        "itertools, operator, dataclasses, collections, enum)")

    # ---- names and calls
    def visit_Name(self, node: ast.Name) -> None:
        if node.id in _FORBIDDEN_CALLS:
            self._add(node, f"« {node.id} » est interdit ici : il sert à "
                            f"{_FORBIDDEN_CALLS[node.id]}, ce dont un noyau n'a pas besoin")
        elif _DUNDER.fullmatch(node.id) and node.id not in _ALLOWED_DUNDER_NAMES:
            self._add(node, f"le nom spécial « {node.id} » est interdit : il ouvre l'accès "
                            "aux rouages de l'interpréteur")

    def visit_Call(self, node: ast.Call) -> None:
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id in _NAME_ATTR_CALLS:
            name = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self._add(node, f"« {fn.id} » avec un nom d'attribut calculé est interdit : "
                                "écrivez l'attribut directement (objet.nom)")
            elif name.value.startswith("_") or name.value in _FORBIDDEN_ATTRS:
                self._add(node, f"« {fn.id}(…, {name.value!r}) » est interdit : attribut "
                                "privé ou donnant accès au système")
        self.generic_visit(node)

    # ---- attributes
    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("__") and attr.endswith("__"):
            self._add(node, f"l'attribut spécial « .{attr} » est interdit : il permet de "
                            "sortir du bac à sable (globales, classes, modules)")
        elif attr.startswith("_"):
            self._add(node, f"l'attribut privé « .{attr} » est interdit : utilisez l'API "
                            "publique de triton et de torch")
        elif attr in _FORBIDDEN_ATTRS:
            self._add(node, f"l'attribut « .{attr} » est interdit : il donne accès au "
                            "système ou à l'interpréteur, pas au calcul")
        chain = self._chain(node)
        if chain:
            self._check_chain(node, chain)
        self.generic_visit(node)

    def _chain(self, node: ast.AST) -> str:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return ""
        root = self.aliases.get(node.id, node.id)
        return ".".join([root, *reversed(parts)])

    def _check_chain(self, node: ast.AST, chain: str) -> None:
        for bad, why in _FORBIDDEN_CHAINS.items():
            if chain == bad or chain.startswith(bad + "."):
                self._add(node, f"« {bad} » est interdit dans un noyau : il {why}")
                return

    # ---- patching torch / triton / math (the timer and the checker live there)
    def _check_target(self, target: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._check_target(elt)
            return
        while isinstance(target, ast.Subscript):
            target = target.value
        if isinstance(target, ast.Attribute):
            chain = self._chain(target)
            if chain.split(".")[0] in _PROTECTED_ROOTS:
                self._add(target, f"modifier « {chain} » est interdit : on ne remplace pas "
                                  "une fonction de torch, triton ou math (chronométrage et "
                                  "vérification en dépendent)")
            elif not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                # A module reached through another name (t = torch; t.cuda.x = …) cannot
                # be told from an object statically; a kernel never needs this.
                self._add(target, f"modifier l'attribut « {chain or target.attr} » d'un "
                                  "objet existant est interdit (seul self.… est permis)")
        elif isinstance(target, ast.Name) and target.id in self.aliases:
            self._add(target, f"réaffecter « {target.id} », qui désigne le module "
                              f"{self.aliases[target.id]}, est interdit")

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._check_target(t)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            self._check_target(t)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            if name in self.aliases:
                self._add(node, f"« global {name} » sur un module importé est interdit")

    # ---- strings that smuggle dunders (format strings, getattr targets built later)
    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and _DUNDER.search(node.value) \
                and node.value != "__main__":
            self._add(node, "une chaîne contenant un nom spécial "
                            f"(« {_DUNDER.search(node.value).group()} ») est interdite : "
                            "elle sert à contourner les contrôles")

    def visit_Expr(self, node: ast.Expr) -> None:
        # A string standing alone (a docstring) is never evaluated into anything.
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            self.generic_visit(node)
