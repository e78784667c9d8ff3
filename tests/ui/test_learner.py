"""The web app as a learner meets it: links inside quotes, kept code, visible streaming,
errors, French typography, odd input, guide search, phone layout, the public API.

Debian's chromium through Playwright against ``create_app()`` on 127.0.0.1 (fixtures in
conftest.py); the sandbox runs for real, in Triton's interpreter. Run one test at a time
on a small machine: ``pytest tests/ui/test_learner.py -k links``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ui_steps import ask, ask_until_taken, open_tab

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LINKED = "Pourquoi synchroniser avant de chronométrer un noyau ?"   # quotes a linked sentence
LONG = "Pourquoi la transposition naïve est-elle lente ?"
# An ordinary space (U+0020) where French wants a no-break one, or none after « .
BAD_SPACE = re.compile(r"\S (?:[:;?!»](?=\s|$))|« ")
# Text of an element as shown, without code and formulas (their spaces are not prose).
PROSE = """(sel) => { const el = document.querySelector(sel); if (!el) return '';
  const c = el.cloneNode(true); c.querySelectorAll('pre, code, .katex, textarea, script').forEach(n => n.remove());
  document.body.appendChild(c); const t = c.innerText; c.remove(); return t; }"""
# Every distinct text of the last answer bubble, with the time it was first seen.
WATCH = """() => {
  window.__seen = [];
  const chat = document.querySelector('#tuile-chat');
  new MutationObserver(() => {
    const bots = chat.querySelectorAll('.message.bot');
    const last = bots[bots.length - 1];
    const text = last ? last.innerText.trim() : '';
    const prev = window.__seen[window.__seen.length - 1];
    if (text && (!prev || prev[1] !== text)) window.__seen.push([performance.now(), text]);
  }).observe(chat, {subtree: true, childList: true, characterData: true});
}"""


def _context(browser, width=1280, height=900, locale="fr-FR"):
    return browser.new_context(locale=locale, viewport={"width": width, "height": height})


def _open(context, url):
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#tuile-question textarea", timeout=30_000)
    return page


def _set_code(page, source: str) -> None:
    """Replace the editor's content as a learner pasting would (one input event)."""
    page.locator("#tuile-code .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(source)


# ---------------------------------------------------------------- 1. links in quotes

def test_links_inside_quoted_sentences_open_the_section_in_the_app(page):
    ask(page, LINKED)
    page.wait_for_selector("#tuile-sources blockquote", timeout=30_000)
    for where in ("#tuile-chat", "#tuile-sources"):
        open_tab(page, "Discussion")
        link = page.locator(f"{where} a", has_text="De PyTorch au noyau").first
        link.wait_for(timeout=10_000)
        href = link.get_attribute("href")
        assert href.startswith("corpus/01-fondations/02-de-pytorch-au-noyau.md"), f"{where} : {href}"
        tabs_before = len(page.context.pages)
        link.click()
        page.locator("#tuile-viewer h1", has_text="De PyTorch au noyau").wait_for(timeout=15_000)
        assert page.get_by_role("tab", name="Le guide").get_attribute("aria-selected") == "true"
        assert len(page.context.pages) == tabs_before, "le lien a ouvert un nouvel onglet"
        assert "Not Found" not in page.locator("body").inner_text()


# ---------------------------------------------------------------- 2. the learner's code

def test_sandbox_keeps_the_learners_code_and_asks_before_replacing_it(page):
    open_tab(page, "Bac à sable")
    code = page.locator("#tuile-code")
    code.get_by_text("transposition_kernel").first.wait_for(timeout=15_000)
    page.locator("#tuile-code .cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.type("# ma version 42\n")
    page.wait_for_function("() => (localStorage.getItem('tuile-code:transposition') || '').includes('ma version 42')",
                           timeout=10_000)
    page.reload()
    open_tab(page, "Bac à sable")
    code.get_by_text("ma version 42").wait_for(timeout=15_000)
    assert "rétabli" in page.locator("#tuile-exercise-summary").inner_text()

    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.click("#tuile-start input")
    page.get_by_role("option", name="Solution naïve (à améliorer)").click()
    page.wait_for_function("() => document.querySelector('#tuile-start input').value.startsWith('Squelette')",
                           timeout=10_000)
    assert asked and "Remplacer votre code" in asked[0]
    page.wait_for_timeout(800)
    assert "ma version 42" in code.inner_text(), "le code a été remplacé malgré le refus"

    page.once("dialog", lambda d: d.accept())
    page.click("#tuile-start input")
    page.get_by_role("option", name="Solution naïve (à améliorer)").click()
    code.get_by_text("_transposition_naive").first.wait_for(timeout=15_000)
    assert "ma version 42" not in code.inner_text()
    assert page.evaluate("localStorage.getItem('tuile-code:transposition')") is None


# ---------------------------------------------------------------- 3. streaming, scroll

def test_answer_streams_visibly_and_the_chat_shows_its_start(browser, server):
    context = _context(browser, 390, 844)
    try:
        page = _open(context, server)
        page.evaluate(WATCH)
        for question in ("Qu'est-ce qu'un warp ?", LONG):
            n = page.locator("#tuile-chat .message.bot").count()
            ask_until_taken(page, question)
            try:
                page.wait_for_function("""(n) => { const bots = document.querySelectorAll('#tuile-chat .message.bot');
                    return bots.length > n && bots[bots.length - 1].querySelector('a[href^="corpus/"]') !== null; }""",
                                       arg=n, timeout=30_000)
            except Exception:
                state = page.evaluate("""() => Array.from(document.querySelectorAll('#tuile-chat .message'))
                    .map(m => m.className + ' : ' + m.innerText.slice(0, 120))""")
                raise AssertionError(f"pas de réponse citée à « {question} » : {state} ; "
                                     f"{page.locator('#tuile-chat-notice').inner_text()}")
        page.wait_for_timeout(500)
        seen = [s for s in page.evaluate("window.__seen") if s[1] != "…"]
        last_answer = [s for s in seen if s[1].startswith(seen[-1][1][:20])]
        assert len(last_answer) >= 3, f"la réponse n'arrive pas par morceaux : {len(last_answer)} état(s)"
        assert last_answer[-1][0] - last_answer[0][0] >= 250, "la réponse arrive d'un bloc"
        start_visible = page.evaluate("""() => {
            const bots = document.querySelectorAll('#tuile-chat .message.bot');
            const msg = bots[bots.length - 1];
            let box = msg.parentElement;
            while (box && !(['auto', 'scroll'].includes(getComputedStyle(box).overflowY) && box.scrollHeight > box.clientHeight))
                box = box.parentElement;
            const m = msg.getBoundingClientRect(), b = box.getBoundingClientRect();
            return {top: m.top - b.top, height: m.height, box: b.height};
        }""")
        assert start_visible["height"] > start_visible["box"], f"réponse trop courte pour le test : {start_visible}"
        assert 0 <= start_visible["top"] < start_visible["box"] / 2, f"le début de la réponse est caché : {start_visible}"
    finally:
        context.close()


def test_a_question_typed_while_an_answer_streams_is_kept(page):
    ask_until_taken(page, LONG)
    page.wait_for_function("() => { const b = document.querySelectorAll('#tuile-chat .message.bot');"
                           " return b.length > 0; }", timeout=30_000)
    nxt = "Et pour une matrice rectangulaire ?"
    page.fill("#tuile-question textarea", nxt)
    # The answer's end is its sources panel: only the last update fills it.
    page.wait_for_selector("#tuile-sources blockquote", timeout=60_000)
    page.wait_for_timeout(500)
    assert page.input_value("#tuile-question textarea") == nxt, "la question tapée pendant la réponse a été effacée"


# ---------------------------------------------------------------- 4. errors as learners see them

def _run_source(page, source: str) -> str:
    """Run and wait for the outcome: a new verdict, or a refusal in the status line (the
    status line keeps « Exécutée sur … » after a run, so its being empty is no signal)."""
    text = ("() => { const p = document.querySelector('#tuile-verdict .prose');"
            " const s = document.querySelector('#tuile-run-status');"
            " return [p ? p.innerText : '', s ? s.innerText : '']; }")
    before = page.evaluate(text)
    _set_code(page, source)
    page.click("#tuile-run")
    page.wait_for_function(f"""(prev) => {{ const [v, s] = ({text})();
        return (v.trim() !== '' && v !== prev[0]) || (s.trim().startsWith('⚠') && s !== prev[1]); }}""",
                           arg=before, timeout=180_000)
    verdict, status = page.evaluate(text)
    return status + "\n" + verdict


def test_sandbox_errors_read_as_french_without_internal_codes(page):
    from sandbox.exercises import get_exercise

    naive = get_exercise("transposition").source("naive")
    open_tab(page, "Bac à sable")
    page.locator("#tuile-code").get_by_text("transposition_kernel").first.wait_for(timeout=15_000)
    cases = {
        "crash": naive.replace("mask = cols < N", "mask = cols <= N"),
        "mismatch": naive.replace("out_ptr + cols * M + row, v,", "out_ptr + cols * M + row, v + 1.0,"),
        "syntax": naive.replace("def custom_kernel(x, out):", "def custom_kernel(x, out)"),
    }
    for kind, source in cases.items():
        assert source != naive, kind
        text = _run_source(page, source)
        for code in ("— syntax", "— mismatch", "— crashed", "crashed :", "mismatch :", "syntax :"):
            assert code not in text, f"{kind} : code interne « {code} » affiché\n{text}"
        if kind == "crash":
            assert "masque" in text, f"pas d'indice pour un arrêt brutal :\n{text}"
        if kind == "mismatch":
            assert text.count("éléments faux") == 1, f"message répété :\n{text}"
        if kind == "syntax":
            assert "ligne 20" in text
    assert "Traceback" not in page.locator("body").inner_text()


# ---------------------------------------------------------------- 5. French typography

def test_french_typography_in_viewer_answers_and_messages(browser, server):
    context = _context(browser, locale="en-US")
    try:
        page = _open(context, server)
        assert page.evaluate("document.documentElement.lang") == "fr"
        page.click("#tuile-send")
        page.locator("#tuile-chat-notice").get_by_text("La question est vide").wait_for(timeout=20_000)
        ask(page, LONG)
        page.wait_for_selector("#tuile-sources blockquote", timeout=30_000)
        page.wait_for_timeout(300)
        for sel in ("#tuile-chat", "#tuile-sources", "#tuile-banner", "#tuile-chat-notice"):
            text = page.evaluate(PROSE, sel)
            bad = [m.group(0) for m in BAD_SPACE.finditer(text)]
            assert not bad, f"{sel} : espaces ordinaires {bad[:5]}"
        open_tab(page, "Le guide")
        page.locator("#tuile-toc a", has_text="Le modèle roofline").click()
        page.locator("#tuile-viewer h1", has_text="Le modèle roofline").wait_for(timeout=15_000)
        text = page.evaluate(PROSE, "#tuile-viewer")
        bad = [text[max(0, m.start() - 20):m.end()] for m in BAD_SPACE.finditer(text)]
        assert not bad, f"visionneuse : {len(bad)} espaces ordinaires, par exemple {bad[:5]}"
        assert "\u202f?" in text or "\u00a0:" in text
    finally:
        context.close()


# ---------------------------------------------------------------- 6. chat input

def test_oversized_message_is_not_echoed_and_empty_leaves_no_bubble(page):
    page.click("#tuile-send")
    page.locator("#tuile-chat-notice").get_by_text("La question est vide").wait_for(timeout=20_000)
    assert page.locator("#tuile-chat .message").count() == 0, "un message vide a laissé une bulle"
    huge = "Pourquoi " + "x" * 60_000 + " ?"
    page.fill("#tuile-question textarea", huge)
    page.click("#tuile-send")
    page.locator("#tuile-chat-notice").get_by_text("trop longue").wait_for(timeout=20_000)
    assert page.locator("#tuile-chat .message").count() == 0, "le message refusé est affiché en bulle"
    assert len(page.locator("body").inner_text()) < 20_000, "le texte de 60 000 caractères est affiché"
    assert page.input_value("#tuile-question textarea") == huge, "le texte refusé est perdu"


# ---------------------------------------------------------------- 7. guide search, deep links

def test_guide_search_and_deep_links_tell_the_truth(page, server):
    open_tab(page, "Le guide")
    page.fill("#tuile-guide-search textarea", "xyzzy plugh")
    page.click("#tuile-guide-go")
    results = page.locator("#tuile-guide-results")
    results.get_by_text("Aucun résultat").wait_for(timeout=20_000)
    assert results.locator("a").count() == 0
    page.fill("#tuile-guide-search textarea", "transposition naïve tuile")
    page.click("#tuile-guide-go")
    results.locator("a").first.wait_for(timeout=20_000)
    shown = results.inner_text()
    for raw in ("```", "\\(", "\\times", "**", "](", "`"):
        assert raw not in shown, f"Markdown brut « {raw} » dans les extraits :\n{shown}"
    page.goto(server + "?chapitre=03-performance/99-chapitre-invente.md")
    page.locator("#tuile-viewer").get_by_text("Ce chapitre n'existe pas").wait_for(timeout=30_000)
    assert "annoncé" not in page.locator("#tuile-viewer").inner_text()
    page.goto(server + "?chapitre=02-programmation/02-premier-noyau.md")   # planned, not in this corpus
    page.locator("#tuile-viewer").get_by_text("annoncé dans le plan").wait_for(timeout=30_000)


# ---------------------------------------------------------------- 8. phone

def test_phone_shows_all_tabs_and_sandbox_labels_clear_of_arrows(browser, server, shot):
    context = _context(browser, 390, 844)
    try:
        page = _open(context, server)
        page.wait_for_timeout(500)
        for name in ("Discussion", "Parcours", "Bac à sable", "Le guide"):
            tab = page.get_by_role("tab", name=name)
            assert tab.is_visible(), f"onglet « {name} » caché"
            box = tab.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, f"onglet « {name} » hors de l'écran"
        open_tab(page, "Bac à sable")
        page.locator("#tuile-code").get_by_text("transposition_kernel").first.wait_for(timeout=15_000)
        overlaps = page.evaluate("""() => Array.from(document.querySelectorAll(
                '#tuile-exercise, #tuile-start, #tuile-dtype')).map(d => {
            const input = d.querySelector('input'), arrow = d.querySelector('.icon-wrap, svg');
            const label = d.querySelector('[data-testid="block-info"]');
            const r = input.getBoundingClientRect(), a = arrow.getBoundingClientRect(), l = label.getBoundingClientRect();
            const textRight = r.right - parseFloat(getComputedStyle(input).paddingRight);
            const labelOnArrow = l.right > a.left && l.left < a.right && l.bottom > a.top && l.top < a.bottom;
            return {id: d.id, textRight, arrowLeft: a.left, labelOnArrow};
        })""")
        for o in overlaps:
            assert not o["labelOnArrow"], o
            assert o["textRight"] <= o["arrowLeft"] + 1, f"le texte de {o['id']} passe sous la flèche : {o}"
        shot(page, "bac-a-sable-390", full_page=False)
    finally:
        context.close()


# ---------------------------------------------------------------- 9. the API

PUBLIC = {"/ask", "/path_step", "/kernel_run", "/guide_search", "/chapter"}


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### L'API"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_api_names_its_endpoints_and_the_readme_example_runs(server, browser):
    from gradio_client import Client

    client = Client(server, verbose=False)
    info = client.view_api(print_info=False, return_format="dict")
    assert set(info["named_endpoints"]) == PUBLIC, sorted(info["named_endpoints"])
    assert not info["unnamed_endpoints"]
    # The README's example, as written, against this server.
    example = _readme_example().replace("http://127.0.0.1:7860/", server)
    scope: dict = {}
    exec(compile(example, "README.md", "exec"), scope)
    answer = scope["answer"]
    assert answer["kind"] == "answer" and answer["citations"], answer
    assert scope["found"]["results"], scope["found"]
    # Bad input is data: a French message, no exception.
    bad = json.loads(client.predict("", api_name="/ask"))
    assert bad["kind"] == "invalid" and "vide" in bad["text"]
    step = json.loads(client.predict("", "", api_name="/path_step"))
    assert step["display"]["kind"] == "question" and step["display"]["options"]
    chapter = json.loads(client.predict("corpus/03-performance/07-transposition.md#version-naive", api_name="/chapter"))
    assert chapter["found"] and 'id="version-naive"' in chapter["markdown"]
    # The page itself still works with every other event private.
    context = _context(browser)
    try:
        page = _open(context, server)
        ask(page, "Qu'est-ce qu'un warp ?")
        page.locator("#tuile-chat a[href^='corpus/']").first.wait_for(timeout=30_000)
    finally:
        context.close()


# ---------------------------------------------------------------- screenshots

@pytest.mark.parametrize("width,height", [(1366, 900), (390, 844)], ids=["bureau", "telephone"])
def test_screenshots_of_each_tab(browser, server, shot, width, height):
    """Each tab with something in it, at both sizes (``TUILE_UI_FULL=1``: docs/screenshots)."""
    context = _context(browser, width, height)
    suffix = f"-{width}"
    try:
        page = _open(context, server)
        ask(page, LONG)
        page.wait_for_selector("#tuile-sources blockquote", timeout=30_000)
        page.wait_for_timeout(600)
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, "discussion" + suffix, full_page=width > 1000)
        open_tab(page, "Parcours")
        page.get_by_role("button", name="Utiliser PyTorch, jamais écrit de noyau").click()
        page.get_by_role("button", name="Écrire mon premier noyau utile").click()
        page.locator("#tuile-checklist").wait_for(timeout=15_000)
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, "parcours" + suffix, full_page=width > 1000)
        open_tab(page, "Bac à sable")
        page.locator("#tuile-code").get_by_text("transposition_kernel").first.wait_for(timeout=15_000)
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, "bac-a-sable" + suffix, full_page=width > 1000)
        open_tab(page, "Le guide")
        page.locator("#tuile-toc a", has_text="Étude de cas : la transposition de matrice").click()
        page.locator("#tuile-viewer h1", has_text="Étude de cas").wait_for(timeout=15_000)
        page.evaluate("window.scrollTo(0, 0)")
        if width < 1000:   # on a phone the viewer comes below the table of contents
            page.evaluate("document.querySelector('#tuile-viewer h1').scrollIntoView({block: 'start'})")
        shot(page, "guide" + suffix, full_page=False)
    finally:
        context.close()
