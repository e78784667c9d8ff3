"""The Parcours tab in a real browser, as a new user answers it in their own words.

Same fixtures as test_browser.py (Debian's chromium, the app on 127.0.0.1, a subset index).
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

TEXT = "#tuile-parcours-texte textarea"


def _answer(page, text: str) -> None:
    page.get_by_role("tab", name="Parcours").click()
    page.fill(TEXT, text)
    page.click("#tuile-parcours-repondre")


def test_empty_and_unknown_answers_get_a_french_message_and_keep_the_question(page):
    _answer(page, "")
    page.get_by_text("Votre réponse est vide").wait_for(timeout=10_000)
    page.get_by_role("button", name="Utiliser PyTorch, jamais écrit de noyau").wait_for(timeout=10_000)
    _answer(page, "banane")
    page.get_by_text("Je n'ai pas compris votre réponse").wait_for(timeout=10_000)
    # Every option is offered again, not a choice between two levels, and the text stays to be corrected.
    for label in ("Programmer, mais rien du GPU", "Écrire des noyaux Hopper avec TMA"):
        page.get_by_role("button", name=label).wait_for(timeout=10_000)
    assert page.input_value(TEXT) == "banane"


def test_a_contradiction_is_asked_about(page):
    _answer(page, "Je ne connais rien au GPU, mais j'écris des noyaux Hopper avec TMA tous les jours")
    page.get_by_text("ne vont pas ensemble").wait_for(timeout=10_000)
    page.get_by_role("button", name="Programmer, mais rien du GPU").wait_for(timeout=10_000)
    page.get_by_role("button", name="Écrire des noyaux Hopper avec TMA").wait_for(timeout=10_000)


def test_prerequisites_from_the_words_are_named_and_the_hours_add_up(page):
    _answer(page, "j'écris des kernels cuda, je sais ce qu'est un warp et qu'il faut pas mettre de "
                  "cudaDeviceSynchronize entre deux kernels, mais mbarrier et TMA j'ai jamais vu")
    page.get_by_text("Qu'est-ce que vous voulez en faire").wait_for(timeout=10_000)
    _answer(page, "les megakernels en détail")
    checklist = page.locator("#tuile-checklist")
    checklist.get_by_text("Parcours F").wait_for(timeout=15_000)
    text = checklist.inner_text()
    assert "à lire d'abord" in text and "11\u00a0h\u00a020 en tout" in text
    assert page.get_by_text("Compris de votre réponse").count() >= 1
    # 8 chapters of CUDA moderne at 25 min and 10 of part 8 at 50 or 45 min: 11 h 20.
    times = checklist.locator(".tuile-hours").all_inner_texts()
    minutes = sum(int(t.split("\u00a0")[0]) for t in times)
    assert len(times) == 18 and minutes == 680


def test_two_facts_that_clash_are_quoted_and_one_is_picked_by_its_button(page):
    _answer(page, "je n'ai jamais programmé, je code en Rust depuis 3 ans")
    page.get_by_text("ne vont pas ensemble").wait_for(timeout=10_000)
    page.get_by_role("button", name="je n'ai jamais programmé").wait_for(timeout=10_000)
    page.get_by_role("button", name="je code en Rust depuis 3 ans").click()
    page.get_by_text("Qu'est-ce que vous voulez en faire").wait_for(timeout=10_000)
