"""French numbers and parser messages (``sandbox.french``), checked against the live parser."""
from __future__ import annotations

import pytest

from sandbox.french import error_label, fr_bytes, fr_number, fr_syntax, fr_syntax_error, fr_typo

NN, NB = "\u202f", "\u00a0"


@pytest.mark.parametrize("x,decimals,text", [
    (1234567.891, 2, f"1{NN}234{NN}567,89"),
    (0.5, 1, "0,5"),
    (-1.45721, None, "-1,45721"),
    (-1234.5, 1, f"-1{NN}234,5"),
    (999, 0, "999"),
    (1000, 0, f"1{NN}000"),
    (65536, 0, f"65{NN}536"),
    (-0.04, 1, "0,0"),
    (3e-7, None, "3e-07"),
    (None, 1, "inconnu"),
    (float("nan"), 2, "NaN"),
    (float("-inf"), 2, "−∞"),
])
def test_fr_number(x, decimals, text):
    assert fr_number(x, decimals) == text


def test_fr_bytes():
    assert fr_bytes(64 << 10) == f"64{NB}Kio"
    assert fr_bytes(8 << 30) == f"8,0{NB}Gio"
    assert fr_bytes(1536 << 20) == f"1,5{NB}Gio"
    assert fr_bytes(512) == f"512{NB}octets"


# Code that makes CPython's parser say each of the common messages.
PARSER_CASES = [
    ("if x\n    pass\n", "il manque «"),
    ("def f(:\n    pass\n", "syntaxe invalide"),
    ("  x = 1\n", "indentation inattendue"),
    ("if 1:\n    a = 1\n  b = 2\n", "ne correspond à aucun bloc"),
    ("x = (1,\n", f"«{NB}({NB}» ouvert mais jamais fermé"),
    ("x = [1, 2\n", f"«{NB}[{NB}» ouvert"),
    ("a = 1)\n", f"«{NB}){NB}» fermé sans avoir été ouvert"),
    ("f(a b)\n", "une virgule manque-t-elle"),
    ("x = 'abc\n", "chaîne de caractères non terminée"),
    ("for x in y:\npass\n", f"bloc indenté attendu après l'instruction «{NB}for{NB}» de la ligne 1"),
    ("def f():\nreturn 1\n", "après la définition de fonction de la ligne 1"),
    ("return 1\n", f"«{NB}return{NB}» hors d'une fonction"),
    ("if x = 1:\n    pass\n", "vouliez-vous écrire"),
    ("1 = x\n", "affectation impossible"),
    ("def f(a=1, b):\n    pass\n", "sans valeur par défaut"),
    ("x = 1 if y\n", f"«{NB}else{NB}» attendu"),
    ("try:\n    pass\nx = 1\n", f"«{NB}except{NB}» ou «{NB}finally{NB}»"),
    ("x = 1__0\n", "nombre mal écrit"),
    ("x = 2 – 1\n", "caractère interdit"),
]


@pytest.mark.parametrize("code,fragment", PARSER_CASES)
def test_parser_messages_in_french(code, fragment):
    with pytest.raises(SyntaxError) as info:
        compile(code, "soumission.py", "exec")
    text = fr_typo(fr_syntax(info.value.msg))
    assert fragment in text, (info.value.msg, text)
    assert info.value.msg not in text   # translated, not kept


def test_unknown_parser_message_is_kept_in_parentheses():
    assert fr_syntax("a brand new complaint") == "syntaxe invalide (a brand new complaint)"


def test_whole_sentence_has_line_and_text():
    with pytest.raises(SyntaxError) as info:
        compile("x = 1\nif x\n    pass\n", "soumission.py", "exec")
    text = fr_syntax_error(info.value)
    assert text.startswith(f"erreur de syntaxe ligne 2, colonne 5{NB}: il manque")
    assert f"«{NB}if x{NB}»" in text


def test_typography():
    assert fr_typo("erreur : a ; b ? « x » http://h a:b !") == \
        f"erreur{NB}: a{NN}; b{NN}? «{NB}x{NB}» http://h a:b{NN}!"
    assert error_label("syntax") == "erreur de syntaxe" and error_label("neuf") == "neuf"
