"""The Discussion tab: questions to the guide, answers streamed with their citations.

One handler, ``ask``, a generator over ``assistant.answer.answer``: each ``Piece`` is shown
as it comes; the final ``Answer`` replaces the streamed text by the same text with its
« [n] » marks linked to the cited sections, fills the « Sources » panel and keeps the
conversation (``Conversation.with_answer``) in the session. A question about what to read
is answered by the path dialogue: the Parcours tab opens.
"""
from __future__ import annotations

import gradio as gr

from assistant.answer_records import Answer, Conversation
from assistant.ui import render
from assistant.ui.services import Services, french_error

EXAMPLES = (
    "Pourquoi ma transposition plafonne-t-elle à 25 % de la bande passante ?",
    "Qu'est-ce qu'un warp ?",
    "Comment mesurer correctement la bande passante d'un noyau ?",
    "Par quoi commencer si je connais PyTorch ?",
)
LATEX = [{"left": "\\(", "right": "\\)", "display": False},
         {"left": "\\[", "right": "\\]", "display": True},
         {"left": "$$", "right": "$$", "display": True}]

_COMPOSED_NOTICE = ("ℹ **Réponses composées sans modèle de langage** : chaque réponse est faite de "
                    "phrases du guide, citées telles quelles et numérotées ; cliquez sur un numéro "
                    "ou un lien pour ouvrir la section.")
_PLACEHOLDER = ("### Bonjour !\nPosez une question sur la programmation GPU : Tuile répond avec les "
                "phrases de son guide et cite les sections d'où elles viennent.")
_READING_PATH = ("Pour choisir quoi lire, répondez à deux questions dans l'onglet **Parcours** "
                 "(il vient de s'ouvrir) : Tuile vous recommande un parcours de lecture.")


def _banner(services: Services, answer: Answer | None = None) -> str:
    if answer is not None and answer.generator != "composed":
        return f"ℹ Réponses rédigées par le modèle **{answer.generator}** à partir des sections du guide, vérifiées : chaque affirmation cite sa source."
    label = services.llm_label()
    if label and answer is None:
        return (f"ℹ Réponses rédigées par le modèle **{label}** à partir des sections du guide ; "
                "si le modèle échoue, la réponse est composée des phrases du guide.")
    return _COMPOSED_NOTICE


def build(services: Services, tabs: gr.Tabs) -> dict:
    conversation = gr.State(Conversation())
    banner = gr.Markdown(_banner(services), elem_id="tuile-banner")
    with gr.Row(equal_height=False):
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(label="Discussion", elem_id="tuile-chat", height=520,
                                 latex_delimiters=LATEX, placeholder=_PLACEHOLDER,
                                 buttons=["copy"], feedback_options=None)
            with gr.Row():
                question = gr.Textbox(placeholder="Votre question sur la programmation GPU…",
                                      show_label=False, lines=1, max_lines=6, scale=5,
                                      elem_id="tuile-question", submit_btn=False)
                send = gr.Button("Envoyer", variant="primary", scale=1, min_width=100, elem_id="tuile-send")
            gr.Markdown("**Exemples de questions**", elem_classes=["tuile-examples-title"])
            with gr.Row(elem_classes=["tuile-examples"]):
                example_buttons = [gr.Button(q, size="sm", variant="secondary") for q in EXAMPLES]
            clear = gr.Button("Nouvelle conversation", size="sm", variant="secondary")
        with gr.Column(scale=2, elem_id="tuile-sources-col"):
            gr.Markdown("### Sources")
            sources = gr.Markdown(render.sources_markdown(None), elem_id="tuile-sources",
                                  latex_delimiters=LATEX)

    def ask(message, history, conv):
        history = list(history or [])
        conv = conv if isinstance(conv, Conversation) else Conversation()
        history.append({"role": "user", "content": message if isinstance(message, str) else str(message)})
        history.append({"role": "assistant", "content": "…"})
        yield history, "", gr.skip(), gr.skip(), conv, gr.skip()
        shown, notices, final = "", [], None
        try:
            from assistant.answer import answer
            for item in answer(message, conv, services.generator, retriever=services.retriever,
                               config=services.config):
                if isinstance(item, Answer):
                    final = item
                    break
                if item.kind == "text":
                    shown += item.text
                elif item.kind == "reset":
                    shown, notices = "", notices + [item.text]
                else:
                    notices.append(item.text)
                head = "".join(f"_{n}_\n\n" for n in notices)
                history[-1] = {"role": "assistant", "content": head + (shown or "…")}
                yield history, "", gr.skip(), gr.skip(), conv, gr.skip()
        except Exception as err:  # any layer: a French message, and the server keeps serving
            history[-1] = {"role": "assistant", "content": f"⚠ {french_error(err)}"}
            yield history, gr.skip(), gr.skip(), gr.skip(), conv, gr.skip()
            return
        if final is None:
            yield history, gr.skip(), gr.skip(), gr.skip(), conv, gr.skip()
            return
        if final.kind == "reading_path":
            history[-1] = {"role": "assistant", "content": _READING_PATH}
            yield (history, "", gr.skip(), gr.skip(), conv.with_answer(final),
                   gr.Tabs(selected="parcours"))
            return
        history[-1] = {"role": "assistant", "content": render.answer_markdown(final)}
        panel = render.sources_markdown(final, services.library.section_excerpt)
        yield (history, "", panel, _banner(services, final) if final.kind == "answer" else gr.skip(),
               conv.with_answer(final), gr.skip())

    outputs = [chatbot, question, sources, banner, conversation, tabs]
    send.click(ask, [question, chatbot, conversation], outputs, concurrency_limit=services.config.ui_chat_concurrency)
    question.submit(ask, [question, chatbot, conversation], outputs, concurrency_limit=services.config.ui_chat_concurrency)
    for b, q in zip(example_buttons, EXAMPLES):
        b.click(lambda h, c, q=q: (yield from ask(q, h, c)), [chatbot, conversation], outputs,
                concurrency_limit=services.config.ui_chat_concurrency)
    clear.click(lambda: ([], "", render.sources_markdown(None), Conversation()),
                None, [chatbot, question, sources, conversation])
    return {"chatbot": chatbot, "question": question, "sources": sources}
