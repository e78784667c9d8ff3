"""Tuile's web app: four tabs over the library's public entries, in French.

``create_app(config)`` builds the Gradio ``Blocks`` without launching it (tests and the
benchmark build it, then ``launch`` it on a free loopback port). Tabs: Discussion
(``assistant.answer``), Parcours (``assistant.paths``), Bac à sable (``sandbox.runner``)
and Le guide (the chapters, ``assistant.search.retrieve`` for search). The UI is an adapter:
handlers are (streaming) generators that call one entry and render its record with
``assistant.ui.render``; an error of any layer becomes a French message in the page.

A small script in the page's head routes every link of the form
``corpus/<path>.md#anchor`` (citations, the path checklist, the diagnosis, the table of
contents, links between chapters), and any relative ``../<part>/<chapter>.md#anchor``
left in a quoted sentence, to the chapter viewer instead of the browser; reports the
ticked chapters of a path; keeps the sandbox editor's code per exercise in localStorage;
scrolls the chat to the start of each new answer; and holds ``<html lang="fr">`` (Gradio
sets it to the browser's language). ``assistant/ui/api.py`` declares the five public
endpoints; every event here is ``api_visibility="private"``. ``?chapitre=<path>#<anchor>`` in the address opens
a chapter at a section (deep link). Offline: no font or script is fetched from a CDN
(system fonts; KaTeX and highlighting come with Gradio's bundle); analytics are off.

    from assistant.ui.app import create_app, launch
    launch(create_app(), host="127.0.0.1", port=7860)
"""
from __future__ import annotations

import os
import threading

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from assistant.ui import api, bac_a_sable, discussion, guide, parcours  # noqa: E402
from assistant.ui.services import Services  # noqa: E402
from ingest.config import Config, load_config  # noqa: E402

TITLE = "Tuile — apprendre la programmation GPU"

CSS = """
.tuile-muted { color: var(--body-text-color-subdued); font-size: 0.92em; }
#tuile-header h1 { margin-bottom: 0; }
#tuile-viewer { max-width: 52rem; padding-bottom: 70vh; }  /* the last section can reach the top */
#tuile-viewer h1, #tuile-viewer h2, #tuile-viewer h3 { scroll-margin-top: 16px; }
@keyframes tuile-flash { 0%, 40% { background: #fde68a; } 100% { background: transparent; } }
.tuile-cible { animation: tuile-flash 4s ease-out; border-radius: 4px; }
.tuile-toc ol { padding-left: 1.8em; margin: 0.2em 0 0.6em 0; }
.tuile-toc li { margin: 0.15em 0; }
.tuile-toc summary { cursor: pointer; font-weight: 600; margin: 0.3em 0; }
.tuile-absent { color: var(--body-text-color-subdued); }
.tuile-checklist ul { list-style: none; padding-left: 0.4em; margin: 0.2em 0 0.8em 0; }
.tuile-checklist li { margin: 0.25em 0; }
.tuile-checklist input { margin-right: 0.4em; transform: scale(1.15); }
.tuile-step-label { font-weight: 600; margin-top: 0.6em; }
.tuile-hours { margin-left: 0.5em; padding: 0 0.45em; border-radius: 0.6em; font-size: 0.85em;
               background: var(--background-fill-secondary); border: 1px solid var(--border-color-primary); }
.tuile-examples button { white-space: normal; text-align: left; }
#tuile-sources { max-height: 620px; overflow-y: auto; }
#tuile-sources blockquote { font-size: 0.93em; margin: 0.3em 0 0.8em 0; }
.tuile-chart { color: var(--body-text-color); }
.tuile-message { white-space: pre-wrap; overflow-wrap: anywhere; padding: 0.5em 0.7em; border-radius: 6px;
                 background: var(--background-fill-secondary); border-left: 3px solid var(--error-border-color, #dc2626); }
.tuile-results { padding-left: 1.1em; }
.tuile-results li { margin: 0.35em 0; }
/* A long choice ends in « … » before the arrow instead of running under it. */
#tuile-sandbox-choices input[role="combobox"] { padding-right: 2.4em !important; text-overflow: ellipsis; }
/* Phone (390 px): the four tabs fit on one line instead of two going behind « ⋯ » (Gradio
   moves a tab into that menu when the hidden measuring row is wider than the bar). */
@media (max-width: 560px) {
  #tuile-tabs .tab-container button { padding: 0 0.5em; font-size: 0.92em; }
  #tuile-tabs .tab-container { gap: 0; }
  #tuile-header h1 { font-size: 1.5em; }
}
"""

# Routes guide links to the viewer, reports ticked chapters, opens deep links.
HEAD = """
<script>
(function () {
  function press(id) { var b = document.getElementById(id); if (b) { b.click(); return true; } return false; }
  function openGuide(href) { window.__tuileNav = href; press('tuile-nav-btn'); }
  window.tuileScroll = function (link) {
    if (!link) return;
    var rest = link.replace(/^corpus\\//, ''), i = rest.indexOf('#');
    var path = i < 0 ? rest : rest.slice(0, i), anchor = i < 0 ? '' : rest.slice(i + 1), n = 0;
    (function go() {
      var viewer = document.getElementById('tuile-viewer');
      var mark = viewer && viewer.querySelector('#tuile-ch-' + path.replace(/[^A-Za-z0-9]+/g, '-'));
      var el = mark && (anchor ? viewer.querySelector('[id="' + CSS.escape(anchor) + '"]') : mark);
      if (!el || el.offsetParent === null) { if (n++ < 100) setTimeout(go, 50); return; }
      el.scrollIntoView({block: 'start'});
      if (anchor) { el.classList.add('tuile-cible'); setTimeout(function () { el.classList.remove('tuile-cible'); }, 4000); }
      try { history.replaceState(null, '', '?chapitre=' + encodeURI(path) + (anchor ? '#' + anchor : '')); } catch (e) {}
    })();
  };
  document.addEventListener('click', function (ev) {
    var a = ev.target.closest && ev.target.closest('a');
    if (!a) return;
    var href = a.getAttribute('href') || '';
    if (/^#[\\w-]+$/.test(href) && a.closest('#tuile-viewer')) {
      ev.preventDefault();
      var el = document.getElementById('tuile-viewer').querySelector('[id="' + CSS.escape(href.slice(1)) + '"]');
      if (el) el.scrollIntoView({block: 'start'});
      return;
    }
    var m = href.match(/(?:^|\\/)(corpus\\/[^?#]+\\.md(?:#[\\w-]*)?)$/);
    // A relative link between chapters that the page did not rewrite (« ../01-fondations/x.md#a »).
    var rel = !m && !/^[a-z]+:/i.test(href) && href.match(/^(?:\\.{1,2}\\/)*((?:[\\w-]+\\/)?[\\w-]+\\.md(?:#[\\w-]*)?)$/);
    if (!m && !rel) return;
    ev.preventDefault(); ev.stopPropagation();
    openGuide(m ? m[1] : 'corpus/' + rel[1]);
  }, true);
  // The page is French whatever the browser's language (Gradio sets <html lang> to the latter).
  function french() { if (document.documentElement.lang !== 'fr') document.documentElement.lang = 'fr'; }
  french();
  new MutationObserver(french).observe(document.documentElement, {attributes: true, attributeFilter: ['lang']});
  // The sandbox editor's content, per exercise, in localStorage (see bac_a_sable.py).
  window.tuileCode = {
    saved: function (ex) { try { return localStorage.getItem('tuile-code:' + ex) || ''; } catch (e) { return ''; } },
    save: function (ex, code, pristine) {
      try {
        if (!ex) return;
        var trim = function (s) { return (s || '').replace(/\\s+$/, ''); };
        if (!trim(code) || trim(code) === trim(pristine)) localStorage.removeItem('tuile-code:' + ex);
        else localStorage.setItem('tuile-code:' + ex, code);
      } catch (e) {}
    },
    forget: function (ex) { try { localStorage.removeItem('tuile-code:' + ex); } catch (e) {} }
  };
  // A new answer: scroll the chat to its start (the question just above), and keep that
  // place while the text grows below (the chat is not long enough at first); the learner's
  // own scrolling ends it.
  function scroller(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      var s = getComputedStyle(p).overflowY;
      if (s === 'auto' || s === 'scroll') return p;
    }
    return null;
  }
  function watchChat() {
    var chat = document.getElementById('tuile-chat');
    if (!chat) { setTimeout(watchChat, 200); return; }
    var count = chat.querySelectorAll('.message.bot').length, pending = null;
    function follow() {
      if (!pending) return;
      var box = pending.box, b = box.getBoundingClientRect();
      var row = pending.row.getBoundingClientRect(), q = pending.question.getBoundingClientRect();
      // The question too, when that leaves the answer's start in the upper third.
      var first = row.top - q.top < box.clientHeight / 3 ? q : row;
      var target = first.top - b.top + box.scrollTop - 40;   // below the chat's « Discussion » label
      box.scrollTop = target;
      if (Math.abs(box.scrollTop - target) < 2 && Date.now() > pending.until) pending = null;
    }
    function stop() { pending = null; }
    new MutationObserver(function () {
      var bots = chat.querySelectorAll('.message.bot');
      if (bots.length > count) {
        var last = bots[bots.length - 1], row = last.closest('.message-row') || last;
        var users = chat.querySelectorAll('.message.user'), q = users[users.length - 1];
        var box = scroller(row);
        if (box) {
          if (!box.__tuileWatch) {
            box.__tuileWatch = true;
            ['wheel', 'touchmove', 'keydown'].forEach(function (e) { box.addEventListener(e, stop, {passive: true}); });
          }
          pending = {box: box, row: row, question: q ? (q.closest('.message-row') || q) : row, until: Date.now() + 1500};
        }
      }
      count = bots.length;
      requestAnimationFrame(follow);
    }).observe(chat, {childList: true, subtree: true, characterData: true});
  }
  watchChat();
  document.addEventListener('change', function (ev) {
    var box = ev.target;
    if (!box.classList || !box.classList.contains('tuile-lu')) return;
    var all = Array.prototype.slice.call(box.closest('#tuile-checklist').querySelectorAll('input.tuile-lu'));
    window.__tuileTicks = JSON.stringify({shown: all.map(function (b) { return b.dataset.id; }),
                                          checked: all.filter(function (b) { return b.checked; }).map(function (b) { return b.dataset.id; })});
    press('tuile-ticks-btn');
  }, true);
  function deepLink() {
    var p = new URLSearchParams(location.search).get('chapitre');
    if (!p) return;
    var href = 'corpus/' + p.replace(/^corpus\\//, '') + (location.hash || ''), n = 0;
    var t = setInterval(function () {
      if (document.getElementById('tuile-nav-btn')) { clearInterval(t); setTimeout(function () { openGuide(href); }, 300); }
      else if (++n > 300) clearInterval(t);
    }, 100);
  }
  // Gradio may insert this script after the page's load event: run now in that case.
  if (document.readyState === 'complete') deepLink(); else window.addEventListener('load', deepLink);
})();
</script>
"""


def theme() -> gr.themes.Base:
    """Gradio's default look with system fonts: nothing fetched from a font CDN."""
    return gr.themes.Default(primary_hue="blue", font=["system-ui", "Segoe UI", "Roboto", "sans-serif"],
                             font_mono=["ui-monospace", "DejaVu Sans Mono", "monospace"])


def create_app(config: Config | None = None, *, generator=None, run_kernel=None,
               services: Services | None = None, warm: bool = True) -> gr.Blocks:
    """Build the app (not launched). ``generator``: an answer generator or spec (default:
    the configured one); ``run_kernel``: replaces ``sandbox.runner.run_submission``."""
    services = services or Services(config or load_config(), generator=generator, run_kernel=run_kernel)
    if warm:
        threading.Thread(target=services.warm, daemon=True, name="tuile-warm").start()
    with gr.Blocks(title=TITLE, analytics_enabled=False) as app:
        gr.Markdown("# Tuile\nUn assistant pour apprendre la programmation GPU, ancré dans son guide en français.",
                    elem_id="tuile-header")
        path_state, path_ticks = parcours.browser_states(services.browser_secret())
        with gr.Tabs(selected="discussion", elem_id="tuile-tabs") as tabs:
            with gr.Tab("Discussion", id="discussion", elem_id="tab-discussion"):
                discussion.build(services, tabs)
            with gr.Tab("Parcours", id="parcours", elem_id="tab-parcours"):
                path_tab = parcours.build(services, path_state, path_ticks)
            with gr.Tab("Bac à sable", id="bac-a-sable", elem_id="tab-bac-a-sable"):
                sandbox_tab = bac_a_sable.build(services)
            with gr.Tab("Le guide", id="guide", elem_id="tab-guide"):
                guide_tab = guide.build(services)
        # The link channel: the page's script puts a corpus/… link in window.__tuileNav
        # and presses this button; the viewer opens it, then the script scrolls.
        nav_box = gr.Textbox(visible="hidden", elem_id="tuile-nav-box")
        nav_btn = gr.Button("nav", visible="hidden", elem_id="tuile-nav-btn")

        def navigate(link):
            text, _ = guide.open_link(services, link)
            return text, gr.Tabs(selected="guide")

        nav_btn.click(navigate, nav_box, [guide_tab["viewer"], tabs],
                      js="(x) => window.__tuileNav || x", api_visibility="private",
                      ).then(None, None, None, js="() => { window.tuileScroll(window.__tuileNav); }")

        app.load(lambda st, tk: path_tab["show"](st, tk), [path_tab["state"], path_tab["ticks"]],
                 path_tab["outputs"], api_visibility="private")
        app.load(sandbox_tab["load"], [sandbox_tab["exercise"], sandbox_tab["start"], sandbox_tab["stored"]],
                 [sandbox_tab["code"], sandbox_tab["dtype"], sandbox_tab["summary"], sandbox_tab["pristine"]],
                 js=sandbox_tab["restore_js"], api_visibility="private")
        api.register(services)
    # Chat handlers are CPU-bound (~35 ms a question on 2 cores): more at once only share
    # the cores; kernel runs are async and wait on the pool, holding no thread. Limits and
    # the measurement that sized them: ingest.config.Config.ui_*_concurrency.
    app.queue(default_concurrency_limit=services.config.ui_chat_concurrency)
    app.tuile_services = services
    return app


def launch(app: gr.Blocks, host: str = "127.0.0.1", port: int = 7860, *, block: bool = True, **kwargs):
    """Serve ``app`` with Tuile's head script, styles and theme; analytics off, no share link."""
    return app.launch(server_name=host, server_port=port, share=False, prevent_thread_lock=not block,
                      head=HEAD, css=CSS, theme=theme(), footer_links=[], show_error=False, run_history=False,
                      quiet=kwargs.pop("quiet", True), **kwargs)
