"""Static pre-check of a submitted kernel, before anything of it runs.

Public entry: ``precheck(source) -> list[Problem]``: an empty list means nothing
suspicious was found; each ``Problem`` has the line and a French message that names
what was refused and what is allowed.

It reads the code's syntax tree only (nothing is imported or executed) and refuses what
a Triton kernel never needs:
- imports beyond triton, torch, math and a few harmless standard modules;
- the builtins that open files, run code or reach objects by a name built at run time
  (``open``, ``exec``, ``eval``, ``compile``, ``__import__``, ``vars``, ``globals`` …),
  also as an attribute of anything (``x.open``, ``m.exec``, ``b.setattr``);
- string routes to attributes: ``getattr``/``hasattr`` only as a direct call with a
  literal, harmless name (``g = getattr``, ``functools.reduce(getattr, …)``,
  ``partial(getattr, …)`` are refused), and the same for ``operator.attrgetter``,
  ``methodcaller`` and ``itemgetter`` (dotted names checked part by part); a literal
  name is checked as the attribute it stands for (``getattr(torch, "load")`` is
  ``torch.load``); format strings that walk attributes (``"{0.sys.modules}"``);
- dunder names and attributes (``__builtins__``, ``__import__``, ``__subclasses__``,
  ``__globals__``, ``__dict__`` …) and frames (``f_globals``, ``tb_frame``, ``gi_frame`` …);
- modules that torch or triton happen to carry (``.sys``, ``.os``, ``.importlib``,
  ``.modules`` — so ``sys.modules`` is refused however it is reached —, ``torch.utils``,
  ``torch.hub``, ``torch.serialization``, ``torch.package``, ``cudart`` …), ``.load``
  anywhere but ``triton.language`` (``tl.load``), ``.save``, ``typing.get_type_hints``
  (it evaluates strings);
- patching torch, triton or math (the timer and the checker live there), whatever the
  assignment's form: ``=``, ``+=``, ``del``, ``for … in``, ``with … as``, comprehension
  and ``:=`` targets; a module bound to another name (``t = torch``, ``(t := torch)``)
  keeps its checks under that name.

This is defence in depth, not the boundary: Python offers too many paths to close them
all statically, and the verdict does not rest on it (``jail.run_isolated`` is the
containment). Measured against our own list of 30 bypass attempts
(``tests/sandbox/test_precheck.py``, 2026-12-01): this version refuses 30 of 30; the
previous one (before the string routes were closed) refused 3 of them. No template,
reference or naive solution of the exercises is refused (every file under
``sandbox/exercises/files`` is tested).
"""
from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass

from sandbox.french import fr_syntax, fr_typo

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
# Builtins that take an attribute name as a string: only as a direct call, literal name.
_NAME_ATTR_CALLS = ("getattr", "hasattr")
# operator's string routes: only called directly, with literal arguments.
_OPERATOR_ROUTES = {"operator.attrgetter", "operator.methodcaller", "operator.itemgetter"}
# Attribute names that lead from torch/triton objects to the host, to code built from
# strings, or to frames; refused on any object.
_FORBIDDEN_ATTRS = {
    # modules
    "os", "sys", "subprocess", "ctypes", "socket", "builtins", "importlib", "io",
    "pathlib", "shutil", "pickle", "marshal", "inspect", "gc", "signal", "threading",
    "multiprocessing", "runpy", "types", "posix", "tarfile", "zipfile", "codecs", "tempfile",
    "modules", "environ",
    # torch's doors to files, native code and processes
    "utils", "hub", "ops", "classes", "library", "serialization", "package", "onnx",
    "distributed", "cpp_extension", "load_library", "load_inline", "cudart",
    "from_file", "fromfile", "tofile", "save", "dump", "loads",
    "CUDAGraph", "make_graphed_callables",
    # code from strings, names from strings
    "open", "exec", "eval", "compile", "setattr", "delattr", "getattr", "globals",
    "locals", "vars", "breakpoint", "import_module", "reload", "get_type_hints",
    "ForwardRef", "settrace", "setprofile",
    # processes
    "system", "popen", "fork", "forkpty", "execv", "execve", "execvp", "execvpe", "execl",
    "execle", "execlp", "execlpe", "spawnv", "spawnve", "spawnl", "spawnle", "posix_spawn",
    "kill", "killpg",
    # files
    "read_text", "write_text", "read_bytes", "write_bytes",
    # frames
    "f_globals", "f_locals", "f_back", "f_builtins", "f_code", "gi_frame", "cr_frame",
    "ag_frame", "tb_frame", "tb_next", "co_code",
}
# ``.load`` is Triton's load inside a kernel; anywhere else it reads a file.
_LOAD_ROOT = "triton.language."
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
    "torch.serialization": "lit et écrit des fichiers",
    "torch.package": "charge du code depuis un fichier",
    "torch.cuda.memory": "modifie l'allocateur",
    "torch.cuda.graph": "rejoue des noyaux hors du chronomètre",
    "torch.cuda.graphs": "rejoue des noyaux hors du chronomètre",
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
        return fr_typo(f"ligne {self.line} : {self.message}")


def precheck(source: str) -> list[Problem]:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [Problem(exc.lineno or 0, fr_typo(f"erreur de syntaxe : {fr_syntax(exc.msg)}"))]
    except (ValueError, MemoryError, RecursionError) as exc:
        return [Problem(0, fr_typo(f"code illisible : {exc}"))]
    checker = _Checker()
    checker.collect_aliases(tree)
    checker.visit(tree)
    seen, out = set(), []
    for p in sorted(checker.problems, key=lambda p: p.line):
        if (p.line, p.message) not in seen:
            seen.add((p.line, p.message))
            out.append(p)
    return out


def _allowed_import(name: str) -> bool:
    return name in ALLOWED_IMPORTS or name.startswith(_ALLOWED_PREFIXES)


def _bad_name(name: str) -> bool:
    """An attribute name no kernel reaches by a string: private, dunder or forbidden."""
    return name.startswith("_") or name in _FORBIDDEN_ATTRS or name == "load"


class _Checker(ast.NodeVisitor):
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.aliases: dict[str, str] = {}   # local name -> module path it stands for
        self.imported: set[str] = set()     # names bound by an import (never reassigned)
        self.direct_calls: set[int] = set()  # ids of getattr/attrgetter … nodes called directly

    def _add(self, node: ast.AST, message: str) -> None:
        self.problems.append(Problem(getattr(node, "lineno", 0), fr_typo(message)))

    # ---- module aliases, gathered before the walk (an alias may be used above its line)
    def collect_aliases(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _allowed_import(alias.name):
                        local = alias.asname or alias.name.split(".")[0]
                        self.aliases[local] = alias.name if alias.asname else local
                        self.imported.add(local)
            elif isinstance(node, ast.ImportFrom) and not node.level \
                    and _allowed_import(node.module or ""):
                for alias in node.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                        self.imported.add(alias.asname or alias.name)
        # ``t = torch``, ``c = torch.cuda``, ``(t := torch)``: the new name keeps the checks.
        for _ in range(3):   # chains of aliases, a few deep
            for node in ast.walk(tree):
                pairs = []
                if isinstance(node, ast.Assign):
                    pairs = [(t, node.value) for t in node.targets]
                elif isinstance(node, ast.NamedExpr):
                    pairs = [(node.target, node.value)]
                for target, value in pairs:
                    chain = self._chain(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
                    if isinstance(target, ast.Name) and chain and chain.split(".")[0] in \
                            {v.split(".")[0] for v in self.aliases.values()} \
                            and target.id not in self.aliases:
                        self.aliases[target.id] = chain

    # ---- imports
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not _allowed_import(alias.name):
                self._refuse_import(node, alias.name)
            else:
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
        elif node.id in _NAME_ATTR_CALLS and id(node) not in self.direct_calls:
            self._add(node, f"« {node.id} » ne s'emploie ici qu'appelé directement, avec un "
                            "nom d'attribut écrit en clair : getattr(objet, \"nom\")")
        elif self.aliases.get(node.id) in _OPERATOR_ROUTES and id(node) not in self.direct_calls:
            self._refuse_operator_ref(node, self.aliases[node.id])

    def _refuse_operator_ref(self, node: ast.AST, route: str) -> None:
        self._add(node, f"« {route} » ne s'emploie ici qu'appelé directement, avec des "
                        "arguments écrits en clair")

    def visit_Call(self, node: ast.Call) -> None:
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id in _NAME_ATTR_CALLS:
            self.direct_calls.add(id(fn))
            self._check_getattr(node, fn.id)
        else:
            route = self._chain(fn) if isinstance(fn, (ast.Name, ast.Attribute)) else ""
            if route in _OPERATOR_ROUTES:
                self.direct_calls.add(id(fn))
                self._check_operator_call(node, route)
        self.generic_visit(node)

    def _check_getattr(self, node: ast.Call, fn: str) -> None:
        name = node.args[1] if len(node.args) > 1 else None
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)) \
                or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self._add(node, f"« {fn} » avec un nom d'attribut calculé est interdit : "
                            "écrivez l'attribut directement (objet.nom)")
            return
        if _bad_name(name.value) and not (name.value == "load" and self._under_tl(node.args[0])):
            self._add(node, f"« {fn}(…, {name.value!r}) » est interdit : attribut "
                            "privé ou donnant accès au système")
            return
        base = self._chain(node.args[0]) if isinstance(node.args[0], (ast.Name, ast.Attribute)) else ""
        if base:
            self._check_chain(node, f"{base}.{name.value}")

    def _check_operator_call(self, node: ast.Call, route: str) -> None:
        args = list(node.args)
        if node.keywords and route != "operator.methodcaller" or \
                any(isinstance(a, ast.Starred) for a in args) or not args:
            self._add(node, f"« {route} » avec des arguments calculés est interdit")
            return
        if route == "operator.methodcaller":
            names = args[:1]   # the method's name; the rest are its arguments
        else:
            names = args
        for a in names:
            if not isinstance(a, ast.Constant):
                self._add(node, f"« {route} » avec un nom calculé est interdit : écrivez "
                                "l'attribut ou l'indice directement")
                return
            if isinstance(a.value, str):
                parts = a.value.split(".") if route == "operator.attrgetter" else [a.value]
                bad = [p for p in parts if _bad_name(p) or _DUNDER.search(p)]
                if bad:
                    self._add(node, f"« {route}({a.value!r}) » est interdit : « {bad[0]} » "
                                    "est privé ou donne accès au système")
                    return

    # ---- attributes
    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        chain = self._chain(node)
        if attr.startswith("__") and attr.endswith("__"):
            self._add(node, f"l'attribut spécial « .{attr} » est interdit : il permet de "
                            "sortir du bac à sable (globales, classes, modules)")
        elif attr.startswith("_"):
            self._add(node, f"l'attribut privé « .{attr} » est interdit : utilisez l'API "
                            "publique de triton et de torch")
        elif attr in _FORBIDDEN_ATTRS:
            self._add(node, f"l'attribut « .{attr} » est interdit : il donne accès au "
                            "système, aux fichiers ou à l'interpréteur, pas au calcul")
        elif attr == "load" and not chain.startswith(_LOAD_ROOT):
            self._add(node, "« .load » n'est permis que comme tl.load dans un noyau : "
                            "ailleurs il lit un fichier")
        elif chain in _OPERATOR_ROUTES and id(node) not in self.direct_calls:
            self._refuse_operator_ref(node, chain)
        if chain:
            self._check_chain(node, chain)
        self.generic_visit(node)

    def _under_tl(self, node: ast.AST) -> bool:
        chain = self._chain(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""
        return chain == _LOAD_ROOT.rstrip(".") or chain.startswith(_LOAD_ROOT)

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
        if isinstance(target, ast.Starred):
            self._check_target(target.value)
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
        elif isinstance(target, ast.Name) and target.id in self.imported:
            self._add(target, f"réaffecter « {target.id} », qui désigne "
                              f"{self.aliases[target.id]}, est interdit")

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            if not (isinstance(t, ast.Name) and self._is_alias_binding(t, node.value)):
                self._check_target(t)
        self.generic_visit(node)

    def _is_alias_binding(self, target: ast.Name, value: ast.AST) -> bool:
        """``t = torch``: the binding that made the alias is not a reassignment."""
        return isinstance(value, (ast.Name, ast.Attribute)) and \
            self.aliases.get(target.id) == self._chain(value)

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

    def visit_For(self, node: ast.For) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._check_target(item.optional_vars)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        if not self._is_alias_binding(node.target, node.value):
            self._check_target(node.target)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            if name in self.aliases:
                self._add(node, f"« global {name} » sur un module importé est interdit")

    # ---- strings that smuggle dunders or walk attributes (format strings)
    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str):
            return
        if _DUNDER.search(node.value) and node.value != "__main__":
            self._add(node, "une chaîne contenant un nom spécial "
                            f"(« {_DUNDER.search(node.value).group()} ») est interdite : "
                            "elle sert à contourner les contrôles")
            return
        bad = _format_walk(node.value)
        if bad:
            self._add(node, f"une chaîne de format qui parcourt des attributs (« {bad} ») "
                            "est interdite : écrivez la valeur dans la f-string")

    def visit_Expr(self, node: ast.Expr) -> None:
        # A string standing alone (a docstring) is never evaluated into anything.
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            self.generic_visit(node)


def _format_walk(text: str) -> str:
    """The first private or forbidden attribute a ``str.format`` field walks, or ""."""
    if "{" not in text:
        return ""
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f]
    except ValueError:
        return ""
    for field in fields:
        for part in re.findall(r"\.(\w+)", field):
            if _bad_name(part):
                return "." + part
    return ""
