"""The Parcours tab: the reading-path dialogue of ``assistant.paths``, by buttons or free text.

The dialogue state (``DialogueState.to_dict()``) and the chapters ticked are kept in the
browser (``gr.BrowserState``, i.e. localStorage), so a visitor finds the path and their
progress when they come back. Every input, a button's value or typed text, goes through
``PathDialogue.step``; « retour » and « recommencer » are its own words for back and restart.
"""
from __future__ import annotations

import json

import gradio as gr

from assistant.paths import DialogueState
from assistant.typography import fr_typography
from assistant.ui import render
from assistant.ui.services import Services, french_error

MAX_OPTIONS = 6
_PRIVATE = dict(api_visibility="private")   # the API is assistant/ui/api.py's named endpoints
_KIND_TITLE = {"question": "", "clarification": "Précision", "prerequisite": "Prérequis"}


def browser_states(secret: str) -> tuple[gr.BrowserState, gr.BrowserState]:
    """The dialogue state and the ticked chapters, in localStorage. Created outside the tabs:
    a tab's components mount only when it is first shown, and an unmounted BrowserState
    hands the page-load event nothing."""
    return (gr.BrowserState({"answers": [], "clarify": []}, storage_key="tuile-parcours-etat", secret=secret),
            gr.BrowserState([], storage_key="tuile-parcours-lus", secret=secret))


def build(services: Services, state: gr.BrowserState, ticks: gr.BrowserState) -> dict:
    gr.Markdown("Deux questions, et Tuile vous recommande un parcours de lecture dans le guide. "
                "Cliquez une réponse ou écrivez-la avec vos mots.", elem_classes=["tuile-muted"])
    prompt = gr.Markdown("", elem_id="tuile-parcours-question")
    with gr.Row(elem_id="tuile-parcours-options"):
        options = [gr.Button("", visible=False, variant="secondary", elem_classes=["tuile-option"])
                   for _ in range(MAX_OPTIONS)]
    with gr.Row(elem_id="tuile-parcours-libre") as free_row:
        free = gr.Textbox(placeholder="…ou répondez avec vos mots, par exemple « je connais PyTorch »",
                          show_label=False, scale=5, elem_id="tuile-parcours-texte")
        reply = gr.Button("Répondre", variant="primary", scale=1, min_width=100, elem_id="tuile-parcours-repondre")
    checklist = gr.HTML("", elem_id="tuile-parcours-liste")
    progress = gr.Markdown("", elem_id="tuile-parcours-progres")
    with gr.Row():
        back = gr.Button("← Retour", size="sm", variant="secondary", elem_id="tuile-parcours-retour")
        restart = gr.Button("Recommencer", size="sm", variant="secondary", elem_id="tuile-parcours-recommencer")
    # The page's script reports ticked boxes here (a JSON payload) and clicks the button.
    tick_box = gr.Textbox(visible="hidden", elem_id="tuile-ticks-box")
    tick_btn = gr.Button("ticks", visible="hidden", elem_id="tuile-ticks-btn")

    def show(st, tk, user_input=None):
        try:
            new_state, display = services.dialogue.step(st, user_input)
        except Exception as err:
            msg = f"⚠ {french_error(err)}"
            return [st, msg] + [gr.update(visible=False)] * MAX_OPTIONS + [gr.update(), "", "", ""]
        title = _KIND_TITLE.get(display.kind, "")
        lines = []
        if display.notice and display.kind != "prerequisite":
            lines.append(f"_{display.notice}_\n")
        elif display.notice:
            lines.append(f"{display.notice}\n")
        if display.kind == "recommendation":
            rec = display.recommendation
            # The first paragraph (path, title, hours) and the exit test are in the checklist.
            paragraphs = display.text.split("\n\n")[1:] or [display.text]
            lines.append("\n\n".join(x for x in paragraphs if not x.startswith("Test de sortie")))
            html = render.recommendation_html(rec, tk or [])
            prog = render.progress_markdown(rec, tk or [])
            opts = [gr.update(visible=False)] * MAX_OPTIONS
            return [new_state.to_dict(), fr_typography("\n\n".join(lines))] + opts + [gr.update(visible=False), html, prog, ""]
        lines.append(f"### {(title + ' — ') if title else ''}{display.text}")
        labels = [label for _, label in display.options][:MAX_OPTIONS]
        opts = [gr.update(value=labels[i], visible=True) if i < len(labels) else gr.update(visible=False)
                for i in range(MAX_OPTIONS)]
        # An answer that was not taken ("banane", a yes/no question answered otherwise) stays
        # in the box to be corrected; one that was taken clears it.
        taken = new_state.to_dict() != DialogueState.from_dict(st).to_dict()
        box = "" if taken or not display.notice else gr.update()
        return [new_state.to_dict(), fr_typography("\n".join(lines))] + opts + [gr.update(visible=True), "", "", box]

    outputs = [state, prompt] + options + [free_row, checklist, progress, free]

    def choose(i):
        def fn(st, tk):
            try:
                _, display = services.dialogue.step(st, None)
                value = display.options[i][0] if i < len(display.options) else None
            except Exception:
                value = None
            return show(st, tk, value)
        return fn

    for i, b in enumerate(options):
        b.click(choose(i), [state, ticks], outputs, **_PRIVATE)
    reply.click(lambda st, tk, text: show(st, tk, text), [state, ticks, free], outputs, **_PRIVATE)
    free.submit(lambda st, tk, text: show(st, tk, text), [state, ticks, free], outputs, **_PRIVATE)
    back.click(lambda st, tk: show(st, tk, "retour"), [state, ticks], outputs, **_PRIVATE)
    restart.click(lambda st, tk: show(st, tk, "recommencer"), [state, ticks], outputs, **_PRIVATE)

    def tick(payload, st, tk):
        try:
            data = json.loads(payload or "{}")
            shown, checked = set(data.get("shown", [])), set(data.get("checked", []))
        except (ValueError, AttributeError):
            return gr.skip(), gr.skip()
        new = sorted((set(tk or []) - shown) | (checked & shown))
        _, display = services.dialogue.step(st, None)
        return new, render.progress_markdown(display.recommendation, new)

    tick_btn.click(tick, [tick_box, state, ticks], [ticks, progress],
                   js="(p, s, t) => [window.__tuileTicks || p, s, t]", **_PRIVATE)
    return {"state": state, "ticks": ticks, "show": show, "outputs": outputs}
