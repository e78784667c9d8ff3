"""The Discussion tab: questions to the guide, answers streamed with their citations.

One handler, ``chat_turn``, a generator over ``assistant.answer.answer``: each ``Piece`` is shown
as it comes, a few words at a time (composed answers arrive whole in about 0.2 s, which
reads as no streaming at all: at most one update per ``_STEP_S``, ``_STEP_WORDS`` words
each, so a 120-word answer unrolls in about half a second); the final ``Answer`` replaces
the streamed text by the same text with its « [n] » marks linked to the cited sections,
fills the « Sources » panel and keeps the conversation (``Conversation.with_answer``) in
the session. A question that ``check_question`` refuses leaves no bubble: its message
shows under the box, which keeps the text. A question about what to read is answered by
the path dialogue: the Parcours tab opens. The chat does not follow the end of the text:
the page's script scrolls to the start of each new answer.
"""
from __future__ import annotations

import time

import gradio as gr

from assistant.answer_records import Answer, Conversation
from assistant.inputs import check_question
from assistant.typography import fr_typography
from assistant.ui import render
from assistant.ui.services import Services, french_error

_STEP_S = 0.03
_STEP_WORDS = 6

EXAMPLES = tuple(fr_typography(q) for q in (
    "Pourquoi ma transposition plafonne-t-elle à 25 % de la bande passante ?",
    "Qu'est-ce qu'un warp ?",
    "Comment mesurer correctement la bande passante d'un noyau ?",
    "Par quoi commencer si je connais PyTorch ?",
))
LATEX = [{"left": "\\(", "right": "\\)", "display": False},
         {"left": "\\[", "right": "\\]", "display": True},
         {"left": "$$", "right": "$$", "display": True}]

_COMPOSED_NOTICE = fr_typography("ℹ **Réponses composées sans modèle de langage** : chaque réponse est faite de "
                    "phrases du guide, citées telles quelles et numérotées ; cliquez sur un numéro "
                    "ou un lien pour ouvrir la section.")
_PLACEHOLDER = fr_typography("### Bonjour !\nPosez une question sur la programmation GPU : Tuile répond avec les "
                "phrases de son guide et cite les sections d'où elles viennent.")
_READING_PATH = fr_typography("Pour choisir quoi lire, répondez à deux questions dans l'onglet **Parcours** "
                 "(il vient de s'ouvrir) : Tuile vous recommande un parcours de lecture.")


def _banner(services: Services, answer: Answer | None = None) -> str:
    if answer is not None and answer.generator != "composed":
        return fr_typography(f"ℹ Réponses rédigées par le modèle **{answer.generator}** à partir des "
                             "sections du guide, vérifiées : chaque affirmation cite sa source.")
    label = services.llm_label()
    if label and answer is None:
        return fr_typography(f"ℹ Réponses rédigées par le modèle **{label}** à partir des sections du guide ; "
                             "si le modèle échoue, la réponse est composée des phrases du guide.")
    return _COMPOSED_NOTICE


def build(services: Services, tabs: gr.Tabs) -> dict:
    conversation = gr.State(Conversation())
    banner = gr.Markdown(_banner(services), elem_id="tuile-banner")
    with gr.Row(equal_height=False):
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(label="Discussion", elem_id="tuile-chat", height=520,
                                 latex_delimiters=LATEX, placeholder=_PLACEHOLDER, autoscroll=False,
                                 buttons=["copy"], feedback_options=None)
            with gr.Row():
                question = gr.Textbox(placeholder="Votre question sur la programmation GPU…",
                                      show_label=False, lines=1, max_lines=6, scale=5,
                                      elem_id="tuile-question", submit_btn=False)
                send = gr.Button("Envoyer", variant="primary", scale=1, min_width=100, elem_id="tuile-send")
            notice = gr.Markdown("", elem_id="tuile-chat-notice")
            gr.Markdown("**Exemples de questions**", elem_classes=["tuile-examples-title"])
            with gr.Row(elem_classes=["tuile-examples"]):
                example_buttons = [gr.Button(q, size="sm", variant="secondary") for q in EXAMPLES]
            clear = gr.Button("Nouvelle conversation", size="sm", variant="secondary")
        with gr.Column(scale=2, elem_id="tuile-sources-col"):
            gr.Markdown("### Sources")
            sources = gr.Markdown(render.sources_markdown(None), elem_id="tuile-sources",
                                  latex_delimiters=LATEX)

    def chat_turn(message, history, conv):
        history = list(history or [])
        conv = conv if isinstance(conv, Conversation) else Conversation()
        checked = check_question(message)
        if not checked.ok:   # no bubble; the text stays in the box, the message under it
            yield gr.skip(), gr.skip(), gr.skip(), gr.skip(), conv, gr.skip(), f"⚠ {fr_typography(checked.message)}"
            return
        history.append({"role": "user", "content": fr_typography(checked.text)})
        history.append({"role": "assistant", "content": "…"})
        # The box is emptied once, when the question is taken; later updates leave it
        # alone, so a next question typed while this answer streams is kept.
        yield history, "", gr.skip(), gr.skip(), conv, gr.skip(), ""
        shown, notices, final, last = "", [], None, 0.0

        def show(text):
            head = "".join(f"_{n}_\n\n" for n in notices)
            history[-1] = {"role": "assistant", "content": render.streamed_markdown(head + (text or "…"))}

        try:
            from assistant.answer import answer
            for item in answer(message, conv, services.generator, retriever=services.retriever,
                               config=services.config):
                if isinstance(item, Answer):
                    final = item
                    break
                if item.kind != "text":
                    notices.append(item.text)
                    show(shown)
                    yield history, gr.skip(), gr.skip(), gr.skip(), conv, gr.skip(), gr.skip()
                    continue
                words = item.text.split(" ") if item.kind == "text" else []
                for i in range(0, max(len(words), 1), _STEP_WORDS):
                    part = " ".join(words[i:i + _STEP_WORDS])
                    shown += part + (" " if i + _STEP_WORDS < len(words) else "")
                    wait = _STEP_S - (time.monotonic() - last)
                    if wait > 0:
                        time.sleep(wait)
                    show(shown)
                    last = time.monotonic()
                    yield history, gr.skip(), gr.skip(), gr.skip(), conv, gr.skip(), gr.skip()
        except Exception as err:  # any layer: a French message, and the server keeps serving
            history[-1] = {"role": "assistant", "content": f"⚠ {french_error(err)}"}
            yield history, gr.skip(), gr.skip(), gr.skip(), conv, gr.skip(), gr.skip()
            return
        if final is None:
            yield history, gr.skip(), gr.skip(), gr.skip(), conv, gr.skip(), gr.skip()
            return
        if final.kind == "reading_path":
            history[-1] = {"role": "assistant", "content": _READING_PATH}
            yield (history, gr.skip(), gr.skip(), gr.skip(), conv.with_answer(final),
                   gr.Tabs(selected="parcours"), gr.skip())
            return
        history[-1] = {"role": "assistant", "content": render.answer_markdown(final)}
        panel = render.sources_markdown(final, services.library.section_excerpt)
        yield (history, gr.skip(), panel, _banner(services, final) if final.kind == "answer" else gr.skip(),
               conv.with_answer(final), gr.skip(), gr.skip())

    outputs = [chatbot, question, sources, banner, conversation, tabs, notice]
    private = dict(api_visibility="private")   # the API is app.py's named endpoints
    limit = services.config.ui_chat_concurrency
    send.click(chat_turn, [question, chatbot, conversation], outputs, concurrency_limit=limit, **private)
    question.submit(chat_turn, [question, chatbot, conversation], outputs, concurrency_limit=limit, **private)
    for b, q in zip(example_buttons, EXAMPLES):
        b.click(lambda h, c, q=q: (yield from chat_turn(q, h, c)), [chatbot, conversation], outputs,
                concurrency_limit=limit, **private)
    clear.click(lambda: ([], "", render.sources_markdown(None), Conversation(), ""),
                None, [chatbot, question, sources, conversation, notice], **private)
    return {"chatbot": chatbot, "question": question, "sources": sources}
