"""French renderings for the sandbox's messages: numbers, byte sizes, Python's parser errors.

``fr_number(x, decimals=1)``: decimal comma and a narrow no-break space (U+202F) between
groups of three digits, as French typography has it (``12 345,6``); every sandbox message
that prints a number goes through it (or ``fr_bytes``, built on it). ``fr_syntax(msg)``
turns the text of a ``SyntaxError`` into French from a table of the messages Python 3.11
and later print; a text it does not know is kept, in parentheses after a French lead. ``fr_typo(text)``
puts the French no-break spaces into a message written with plain ones;
``error_label(kind)`` names a report's ``error_kind`` in French.
Standard library only (the sandbox runs on a GPU host with torch and triton alone).
"""
from __future__ import annotations

import math
import re

NNBSP = "\u202f"   # narrow no-break space: thousands, and before ; ? !
NBSP = "\u00a0"    # no-break space: before :, inside « »


def fr_number(x: float | int | None, decimals: int | None = 1) -> str:
    """``x`` in French: ``fr_number(1234567.891, 2)`` → ``1 234 567,89`` (U+202F).
    ``decimals=None`` keeps up to 6 significant digits (for values of a tensor).
    None gives "inconnu"; NaN gives "NaN"; infinities "∞" and "−∞"."""
    if x is None:
        return "inconnu"
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if decimals is None:
        text = f"{x:.6g}"
        if "e" in text:
            mant, exp = text.split("e")
            return mant.replace(".", ",") + "e" + exp
    else:
        text = f"{x:.{max(decimals, 0)}f}"
    sign = "-" if text.startswith("-") else ""
    whole, _, frac = text.lstrip("-").partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    out = sign + NNBSP.join(groups)
    if sign and set(out) <= set("-0" + NNBSP) and not frac.strip("0"):
        out = out[1:]   # "-0" and "-0,0" are zero
        sign = ""
    return out + ("," + frac if frac else "")


def fr_bytes(n: float | int, decimals: int = 1) -> str:
    """A size in binary units: ``512 octets``, ``64 Kio``, ``8,0 Gio`` (whole Kio and Mio
    are printed without decimals)."""
    for unit, scale in (("Tio", 1 << 40), ("Gio", 1 << 30), ("Mio", 1 << 20), ("Kio", 1 << 10)):
        if abs(n) >= scale:
            v = n / scale
            return f"{fr_number(v, 0 if unit in ('Kio', 'Mio') and v == int(v) else decimals)}{NBSP}{unit}"
    return f"{fr_number(n, 0)}{NBSP}octets"


# Python's parser messages (3.11–3.13), most specific first. Each pattern is matched
# against the whole message; groups are passed on to the French text.
_SYNTAX: list[tuple[str, str]] = [
    (r"expected ':'", "il manque « : » en fin de ligne (après if, for, while, def, class, else …)"),
    (r"invalid syntax\. Perhaps you forgot a comma\?",
     "syntaxe invalide : une virgule manque-t-elle entre deux éléments ?"),
    (r"invalid syntax\. Maybe you meant '==' or ':=' instead of '='\?",
     "syntaxe invalide : vouliez-vous écrire « == » (comparaison) au lieu de « = » ?"),
    (r"invalid syntax", "syntaxe invalide"),
    (r"unexpected indent", "indentation inattendue : cette ligne est plus en retrait que le bloc"),
    (r"unindent does not match any outer indentation level",
     "le retrait de cette ligne ne correspond à aucun bloc englobant (mélange d'espaces et de "
     "tabulations ?)"),
    (r"expected an indented block after '(\w+)' statement on line (\d+)",
     "bloc indenté attendu après l'instruction « {0} » de la ligne {1}"),
    (r"expected an indented block after function definition on line (\d+)",
     "bloc indenté attendu après la définition de fonction de la ligne {0}"),
    (r"expected an indented block after class definition on line (\d+)",
     "bloc indenté attendu après la définition de classe de la ligne {0}"),
    (r"expected an indented block after (.+) on line (\d+)",
     "bloc indenté attendu après la ligne {1} ({0})"),
    (r"expected an indented block", "bloc indenté attendu"),
    (r"unindent does not match .*", "retrait incohérent"),
    (r"'(.)' was never closed", "« {0} » ouvert mais jamais fermé"),
    (r"unmatched '(.)'", "« {0} » fermé sans avoir été ouvert"),
    (r"closing parenthesis '(.)' does not match opening parenthesis '(.)'(?: on line (\d+))?",
     "la parenthèse fermante « {0} » ne correspond pas à l'ouvrante « {1} »"),
    (r"unterminated string literal \(detected at line (\d+)\)",
     "chaîne de caractères non terminée (guillemet fermant manquant, ligne {0})"),
    (r"unterminated triple-quoted string literal \(detected at line (\d+)\)",
     "chaîne entre triples guillemets non terminée (détecté ligne {0})"),
    (r"EOL while scanning string literal", "chaîne de caractères non terminée"),
    (r"unexpected EOF while parsing", "fin du fichier inattendue (un bloc ou une parenthèse "
                                      "n'est pas fermé)"),
    (r"'(\w+)' outside function", "« {0} » hors d'une fonction"),
    (r"'break' outside loop", "« break » hors d'une boucle"),
    (r"'continue' not properly in loop", "« continue » hors d'une boucle"),
    (r"cannot assign to (.+?) here\. Maybe you meant '==' instead of '='\?",
     "affectation impossible ici ({0}) : vouliez-vous écrire « == » au lieu de « = » ?"),
    (r"cannot assign to (.+)", "affectation impossible : {0}"),
    (r"cannot delete (.+)", "suppression impossible : {0}"),
    (r"Missing parentheses in call to '(\w+)'.*",
     "parenthèses manquantes dans l'appel à « {0} » : écrivez {0}(…)"),
    (r"non-default argument follows default argument",
     "un paramètre sans valeur par défaut suit un paramètre qui en a une"),
    (r"parameter without a default follows parameter with a default",
     "un paramètre sans valeur par défaut suit un paramètre qui en a une"),
    (r"positional argument follows keyword argument",
     "un argument positionnel suit un argument nommé"),
    (r"keyword argument repeated: (\w+)", "argument nommé répété : {0}"),
    (r"duplicate argument '(\w+)' in function definition",
     "paramètre « {0} » en double dans la définition de la fonction"),
    (r"expected 'except' or 'finally' block", "bloc « except » ou « finally » attendu après try"),
    (r"expected 'else' after 'if' expression", "« else » attendu dans l'expression conditionnelle"),
    (r"invalid decimal literal", "nombre mal écrit (une lettre ou un _ collé à un chiffre ?)"),
    (r"invalid character '(.)' \(U\+([0-9A-F]+)\)",
     "caractère interdit « {0} » (U+{1}) : guillemets ou tirets typographiques copiés d'un texte ?"),
    (r"invalid non-printable character U\+([0-9A-F]+)", "caractère invisible interdit (U+{0})"),
    (r"leading zeros in decimal integer literals are not permitted.*",
     "un entier décimal ne commence pas par 0 (écrivez 0o… pour l'octal)"),
    (r"f-string: (.+)", "f-string mal formée ({0})"),
    (r"Generator expression must be parenthesized",
     "une expression génératrice doit être entre parenthèses"),
    (r"inconsistent use of tabs and spaces in indentation",
     "mélange de tabulations et d'espaces dans l'indentation"),
    (r"too many statically nested blocks", "trop de blocs imbriqués"),
]
_SYNTAX_RE = [(re.compile(p), fr) for p, fr in _SYNTAX]


def fr_syntax(msg: str) -> str:
    """Python's parser message in French; an unknown one is kept in parentheses."""
    msg = (msg or "").strip()
    for pattern, fr in _SYNTAX_RE:
        m = pattern.fullmatch(msg)
        if m:
            return fr.format(*m.groups())
    return f"syntaxe invalide ({msg})" if msg else "syntaxe invalide"


def fr_syntax_error(err: SyntaxError) -> str:
    """The whole sentence for a SyntaxError: where, what (French), and the line's text."""
    where = (f"ligne {err.lineno}" if err.lineno else "") + (
        f", colonne {err.offset}" if err.lineno and err.offset else "")
    text = (err.text or "").strip()
    return fr_typo(f"erreur de syntaxe{' ' + where if where else ''} : {fr_syntax(err.msg)}"
                   + (f" (« {text[:200]} »)" if text else ""))


_BEFORE_NNBSP = re.compile(r"[ \u00a0]+([;?!])")
_BEFORE_NBSP = re.compile(r"[ \u202f]+:(?=\s|$)")


def fr_typo(text: str) -> str:
    """French spacing in a message written with plain spaces: U+202F before ``; ? !``,
    U+00A0 before ``:`` and inside « ». A colon glued to a word (``a:b``, ``http://``)
    is left alone."""
    text = _BEFORE_NNBSP.sub(NNBSP + r"\1", text)
    text = _BEFORE_NBSP.sub(NBSP + ":", text)
    return re.sub(r"«[ \u00a0\u202f]*", "«" + NBSP,
                  re.sub(r"[ \u00a0\u202f]*»", NBSP + "»", text))


# ``KernelReport.error_kind`` (and ``validate.Invalid.kind``) as a French heading.
_ERROR_LABELS = {
    "unknown_exercise": "exercice inconnu",
    "options": "options",
    "source": "code source",
    "syntax": "erreur de syntaxe",
    "precheck": "contrôle statique",
    "import": "erreur au chargement du module",
    "contract": "contrat de l'exercice",
    "compile": "erreur de compilation",
    "runtime": "erreur à l'exécution",
    "torch_ops": "calcul fait par PyTorch",
    "no_kernel": "aucun noyau Triton",
    "side_stream": "flux CUDA secondaire",
    "input_modified": "entrée modifiée",
    "mismatch": "résultat faux",
    "impossible_time": "temps impossible",
    "timeout": "délai dépassé",
    "crashed": "processus arrêté",
    "internal": "erreur interne du bac à sable",
}


def error_label(kind: str) -> str:
    """A French heading for an error kind; an unknown kind is shown as it is."""
    return _ERROR_LABELS.get(kind, kind)
