"""The app's public API: five named endpoints for scripts and other clients.

``register(services)`` (inside the ``gr.Blocks`` context) declares, with ``gr.api``:

| endpoint | arguments | returns (JSON text) |
| --- | --- | --- |
| ``/ask`` | ``question`` | the ``Answer`` record (kind, text, citations …), as ``tuile ask --json`` |
| ``/path_step`` | ``state`` (JSON text or ""), ``reply`` | ``{"state", "display"}``; send ``state`` back |
| ``/kernel_run`` | ``source``, ``exercise``, ``dtype`` ("" for the default) | the ``KernelReport`` record |
| ``/guide_search`` | ``query`` | ``{"query", "results": [{label, link, snippet, score}], "message"}`` |
| ``/chapter`` | ``link`` (``corpus/<path>.md#anchor``) | ``{"link", "found", "markdown"}`` |

JSON text rather than dicts: ``gradio_client`` takes any dict with a ``path`` key for a
file to download (citations have one), so records travel as text, exactly as the CLI's
``--json`` prints them. Every other event of the page is ``api_visibility="private"``,
so these names are the whole API (``Client(url).view_api()``). Bad input is data, never
an exception: an invalid question is an ``Answer`` of kind ``invalid`` with its French
message, a failure of any layer ``{"kind": "error", "message": …}``.

    import json
    from gradio_client import Client
    client = Client("http://127.0.0.1:7860/")
    json.loads(client.predict("Qu'est-ce qu'un warp ?", api_name="/ask"))["text"]
"""
from __future__ import annotations

import dataclasses
import json

import gradio as gr

from assistant.typography import fr_number
from assistant.ui.services import Services, french_error

MAX_SOURCE = 100_000


def _error(err: BaseException) -> dict:
    return {"kind": "error", "message": french_error(err)}


def _json(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False)


def register(services: Services) -> None:
    def ask(question: str) -> str:
        """A cited answer from the guide (composed by default): the ``Answer`` record."""
        from assistant.answer import answer
        from assistant.answer_records import Answer
        try:
            final = None
            for item in answer(question, None, services.generator, retriever=services.retriever,
                               config=services.config):
                if isinstance(item, Answer):
                    final = item
            return _json(final.to_dict() if final else {"kind": "error", "message": "aucune réponse produite"})
        except Exception as err:
            return _json(_error(err))

    def path_step(state: str = "", reply: str = "") -> str:
        """One step of the reading-path dialogue; send back the returned ``state``."""
        try:
            data = json.loads(state) if (state or "").strip() else None
        except ValueError:
            return _json({"kind": "error", "message": "l'état du parcours n'est pas du JSON : renvoyez "
                                                      "le champ « state » de la réponse précédente, ou \"\""})
        try:
            new_state, display = services.dialogue.step(data, reply or None)
            return _json({"state": new_state.to_dict(), "display": dataclasses.asdict(display)})
        except Exception as err:
            return _json(_error(err))

    def kernel_run(source: str, exercise: str = "transposition", dtype: str = "") -> str:
        """Check (and on a GPU, time) a Triton kernel: the ``KernelReport`` record."""
        if not isinstance(source, str) or not source.strip():
            return _json({"kind": "error", "message": "le code est vide : envoyez le source Python du noyau"})
        if len(source) > MAX_SOURCE:
            return _json({"kind": "error", "message": f"le code est trop long ({fr_number(len(source))} "
                                                      f"caractères ; {fr_number(MAX_SOURCE)} au plus)"})
        try:
            from sandbox.records import RunOptions
            return services.runner()(source, exercise, RunOptions(dtype=dtype or None)).to_json(indent=None)
        except Exception as err:
            return _json(_error(err))

    def guide_search(query: str) -> str:
        """The sections of the guide that use the query's words, with plain-text snippets."""
        from assistant.search.guide_search import search_guide
        try:
            return _json(search_guide(services.retriever, query).to_dict())
        except Exception as err:
            return _json(_error(err))

    def chapter(link: str) -> str:
        """A chapter's Markdown as the viewer shows it (headings carry the section anchors)."""
        from assistant.ui.guide import open_link
        text, opened = open_link(services, link)
        return _json({"link": opened, "found": bool(opened), "markdown": text})

    for fn in (ask, path_step, kernel_run, guide_search, chapter):
        gr.api(fn, api_name=fn.__name__, concurrency_limit=4)
