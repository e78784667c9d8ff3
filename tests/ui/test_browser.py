"""The web app in a real browser: what a user does, tab by tab.

Debian's chromium driven by Playwright against ``create_app()`` served on 127.0.0.1
(fixtures in conftest.py). Each test leaves a screenshot in artifacts/screenshots/.
"""
from __future__ import annotations

import re

import pytest
from ui_steps import ask, open_tab

pytestmark = pytest.mark.browser

QUESTION = "Pourquoi la transposition naïve est-elle lente ?"
# Records every distinct text of the last assistant message, to see the answer stream in.
WATCH_STREAM = """() => {
  window.__seen = [];
  const chat = document.querySelector('#tuile-chat');
  new MutationObserver(() => {
    const bots = chat.querySelectorAll('.message.bot:not(.pending)');
    const last = bots[bots.length - 1];
    const text = last ? last.innerText.trim() : '';
    if (text && window.__seen[window.__seen.length - 1] !== text) window.__seen.push(text);
  }).observe(chat, {subtree: true, childList: true, characterData: true});
}"""


def _in_viewport(page, selector: str) -> bool:
    return page.evaluate("""(sel) => { const el = document.querySelector(sel); if (!el) return false;
        const r = el.getBoundingClientRect(); return r.top >= -2 && r.top < window.innerHeight; }""", selector)


def test_question_streams_a_cited_answer(page, shot):
    page.evaluate(WATCH_STREAM)
    ask(page, QUESTION)
    page.wait_for_selector("#tuile-sources blockquote", timeout=30_000)
    chat = page.locator("#tuile-chat")
    citation = chat.locator("a[href*='corpus/03-performance/']").first
    citation.wait_for(timeout=10_000)
    assert re.fullmatch(r"\[\d+\]", citation.inner_text().strip()), citation.inner_text()
    seen = [s for s in page.evaluate("window.__seen") if s != "…"]
    assert len(seen) >= 2, f"la réponse n'est pas arrivée par morceaux : {seen}"
    assert "transposition" in page.locator("#tuile-sources").inner_text().lower()
    assert "sans modèle de langage" in page.locator("#tuile-banner").inner_text()
    assert page.outside_requests == []
    shot(page, "discussion")


def test_citation_opens_the_chapter_at_its_section(page, shot):
    ask(page, QUESTION)
    link = page.locator("#tuile-chat a[href*='corpus/03-performance/']").first
    link.wait_for(timeout=30_000)
    href = link.get_attribute("href")
    path, anchor = re.search(r"corpus/([^#]+)#([\w-]+)", href).groups()
    link.click()
    target = f"#tuile-viewer [id='{anchor}']"
    page.wait_for_selector(target, timeout=15_000)
    page.wait_for_function("(a) => location.search.includes('chapitre') && location.hash === '#' + a",
                           arg=anchor, timeout=10_000)
    assert page.get_by_role("tab", name="Le guide").get_attribute("aria-selected") == "true"
    assert _in_viewport(page, target), f"la section {anchor} n'est pas à l'écran"
    assert path in page.url
    shot(page, "guide-section-citee", full_page=False)


def test_empty_and_oversized_questions_get_a_clear_message(page):
    page.click("#tuile-send")
    page.get_by_text("La question est vide").wait_for(timeout=30_000)
    ask(page, "Pourquoi " + "très " * 600 + "lent ?")
    page.get_by_text("La question est trop longue").wait_for(timeout=30_000)


def test_reading_path_question_hands_over_to_parcours(page):
    ask(page, "Par quoi commencer si je connais PyTorch ?")
    page.wait_for_function("() => document.querySelector('[role=tab][aria-selected=true]').innerText.includes('Parcours')",
                           timeout=20_000)
    page.get_by_text("Qu'est-ce que vous savez déjà ?").wait_for(timeout=10_000)


def test_reading_path_by_buttons_with_progress_kept(page, shot):
    open_tab(page, "Parcours")
    page.get_by_role("button", name="Utiliser PyTorch, jamais écrit de noyau").click()
    page.get_by_role("button", name="Écrire mon premier noyau utile").click()
    checklist = page.locator("#tuile-checklist")
    checklist.wait_for(timeout=15_000)
    assert "Parcours B" in checklist.inner_text()
    assert checklist.locator("a[href^='corpus/']").count() >= 10
    assert checklist.locator(".tuile-hours").count() >= 10
    box = checklist.locator("input.tuile-lu[data-id='performance-07']")
    box.check()
    page.locator("#tuile-parcours-progres").get_by_text("1 chapitre lu").wait_for(timeout=10_000)
    shot(page, "parcours")
    page.reload()
    open_tab(page, "Parcours")
    page.locator("#tuile-checklist input.tuile-lu[data-id='performance-07']:checked").wait_for(timeout=15_000)
    page.click("#tuile-parcours-retour")
    page.get_by_text("Qu'est-ce que vous voulez en faire ?").wait_for(timeout=10_000)
    page.click("#tuile-parcours-recommencer")
    page.get_by_text("Qu'est-ce que vous savez déjà ?").wait_for(timeout=10_000)


def test_reading_path_by_free_text(page):
    open_tab(page, "Parcours")
    page.fill("#tuile-parcours-texte textarea", "je connais pytorch mais je n'ai jamais écrit de noyau")
    page.click("#tuile-parcours-repondre")
    page.get_by_text("Qu'est-ce que vous voulez en faire ?").wait_for(timeout=10_000)
    page.fill("#tuile-parcours-texte textarea", "je veux rendre mes modèles pytorch plus rapides")
    page.click("#tuile-parcours-repondre")
    page.locator("#tuile-checklist").get_by_text("Parcours C").wait_for(timeout=10_000)


def test_naive_transpose_gets_the_correctness_verdict(page, shot):
    open_tab(page, "Bac à sable")
    assert "justesse seulement" in page.locator("#tuile-sandbox-mode").inner_text()
    page.locator("#tuile-code").get_by_text("transposition_kernel").first.wait_for(timeout=15_000)
    page.click("#tuile-start input")
    page.get_by_role("option", name="Solution naïve (à améliorer)").click()
    page.locator("#tuile-code").get_by_text("_transposition_naive").first.wait_for(timeout=15_000)
    page.click("#tuile-run")
    page.locator("#tuile-run-status").get_by_text("Vérification en cours").wait_for(timeout=15_000)
    verdict = page.locator("#tuile-verdict")
    verdict.get_by_text("Juste").first.wait_for(timeout=120_000)
    assert "interpréteur" in verdict.inner_text()
    assert "127 × 129" in page.locator("#tuile-figures").inner_text()
    shot(page, "bac-a-sable")


def test_table_of_contents_opens_a_chapter(page, shot):
    open_tab(page, "Le guide")
    page.locator("#tuile-toc a", has_text="Étude de cas : la transposition de matrice").click()
    viewer = page.locator("#tuile-viewer")
    viewer.locator("h1", has_text="Étude de cas : la transposition de matrice").wait_for(timeout=15_000)
    assert viewer.locator("#version-naive").count() == 1
    assert viewer.locator(".katex").count() > 0, "les formules \\( … \\) ne sont pas rendues"
    assert viewer.locator("pre code").count() > 0
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "guide", full_page=False)
    page.fill("#tuile-guide-search textarea", "accès coalescés")
    page.click("#tuile-guide-go")
    page.locator("#tuile-guide-results a").first.wait_for(timeout=20_000)
    assert page.outside_requests == []


def test_deep_link_opens_a_section(page, server):
    page.goto(server + "?chapitre=03-performance/07-transposition.md#version-naive")
    page.wait_for_selector("#tuile-viewer #version-naive", timeout=30_000)
    page.wait_for_function("() => { const r = document.querySelector('#tuile-viewer #version-naive')"
                           ".getBoundingClientRect(); return r.top >= -2 && r.top < innerHeight; }", timeout=10_000)


def test_errors_become_french_messages_and_the_server_keeps_serving(browser, broken_server):
    context = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(broken_server)
    page.wait_for_selector("#tuile-question textarea", timeout=30_000)
    ask(page, "Qu'est-ce qu'un warp ?")
    page.locator("#tuile-chat").get_by_text("aucun index").wait_for(timeout=20_000)
    open_tab(page, "Bac à sable")
    page.locator("#tuile-code").get_by_text("transposition_kernel").first.wait_for(timeout=15_000)
    page.click("#tuile-run")
    page.locator("#tuile-run-status").get_by_text("panne simulée").wait_for(timeout=20_000)
    assert "Traceback" not in page.locator("body").inner_text()
    open_tab(page, "Le guide")   # still serving: the guide opens from the table of contents
    page.locator("#tuile-toc a", has_text="Le modèle roofline").click()
    page.locator("#tuile-viewer h1", has_text="Le modèle roofline").wait_for(timeout=15_000)
    context.close()


def test_tuile_serve_brings_the_app_up_and_answers(browser, ui_config):
    """The README's command: ``tuile serve`` checks the index (nothing to redo), then serves."""
    import os
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, TUILE_CORPUS=str(ui_config.corpus_dir), TUILE_INDEX=str(ui_config.index_dir))
    tuile = Path(sys.executable).with_name("tuile")
    command = [str(tuile)] if tuile.exists() else [sys.executable, "-m", "assistant.cli"]
    proc = subprocess.Popen(command + ["serve", "--port", str(port), "--share-nothing"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    context = browser.new_context(locale="fr-FR")
    try:
        page = context.new_page()
        deadline = time.monotonic() + 120
        while True:
            try:
                page.goto(f"http://127.0.0.1:{port}/", timeout=5_000)
                break
            except Exception:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "tuile serve n'a pas démarré en 2 min"
                page.wait_for_timeout(200)
        page.wait_for_selector("#tuile-question textarea", timeout=60_000)
        ask(page, "Qu'est-ce qu'un warp ?")
        page.locator("#tuile-chat a[href^='corpus/']").first.wait_for(timeout=60_000)
    finally:
        context.close()
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert "Index" in out and f"http://127.0.0.1:{port}/" in out


def test_gpu_report_shows_figures_chart_and_diagnosis_links(browser, gpu_replay_server, shot):
    """The naive transpose's report measured on an H200, replayed: queue, table, chart, links."""
    context = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(gpu_replay_server)
    page.wait_for_selector("#tuile-question textarea", timeout=30_000)
    open_tab(page, "Bac à sable")
    assert "GPU détecté" in page.locator("#tuile-sandbox-mode").inner_text()
    page.locator("#tuile-code").get_by_text("transposition_kernel").first.wait_for(timeout=15_000)
    page.click("#tuile-start input")
    page.get_by_role("option", name="Solution naïve (à améliorer)").click()
    page.locator("#tuile-code").get_by_text("_transposition_naive").first.wait_for(timeout=15_000)
    page.click("#tuile-run")
    page.locator("#tuile-run-status").get_by_text("En file d'attente pour le GPU").wait_for(timeout=10_000)
    page.locator("#tuile-chart svg").wait_for(timeout=20_000)
    assert "Exécutée sur" in page.locator("#tuile-run-status").inner_text()   # the host that ran it
    figures = page.locator("#tuile-figures").inner_text()
    assert "479" in figures and "16384 × 16384 float32" in figures
    assert page.locator("#tuile-chart svg rect").count() == 3
    assert page.locator("#tuile-chart svg line").count() == 1      # the exercise's goal
    shot(page, "bac-a-sable-gpu")
    page.locator("#tuile-diagnosis a[href*='07-transposition.md#version-']").first.click()
    page.wait_for_selector("#tuile-viewer [id^='version-tuilee']", timeout=15_000)
    assert page.get_by_role("tab", name="Le guide").get_attribute("aria-selected") == "true"
    context.close()


def test_reading_path_clarification_and_prerequisites(page):
    """Vague free text gets a clarifying question; path F asks its prerequisites (Oui/Non)."""
    open_tab(page, "Parcours")
    page.fill("#tuile-parcours-texte textarea", "je sais écrire des trucs")
    page.click("#tuile-parcours-repondre")
    page.get_by_text("Pour être sûr").wait_for(timeout=10_000)
    page.get_by_role("button", name="Écrire un noyau CUDA simple").click()
    page.get_by_role("button", name="Comprendre les megakernels précisément").click()
    page.get_by_text("Savez-vous ce qu'est un warp ?").wait_for(timeout=10_000)
    page.get_by_role("button", name="Non", exact=True).click()
    for next_question in ("une mbarrier", "une copie TMA", "cudaDeviceSynchronize()"):
        page.locator("#tuile-parcours-question h3", has_text=next_question).wait_for(timeout=10_000)
        page.get_by_role("button", name="Oui", exact=True).click()
    checklist = page.locator("#tuile-checklist")
    checklist.get_by_text("Parcours F").wait_for(timeout=10_000)
    assert "à lire d'abord" in checklist.inner_text()
