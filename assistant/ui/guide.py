"""Le guide tab: the table of contents by part, the chapter viewer, a search box.

Every link into the guide, from any tab, has the form ``corpus/<path>#anchor``; the page's
script hands it to ``open_link``, which renders the chapter (headings carry the anchors
of ``ingest.anchors.slugify``) and opens this tab, then the script scrolls to the section.
The search box lists the sections that ``Retriever.search`` finds.
"""
from __future__ import annotations

import html

import gradio as gr

from assistant.search.guide_search import search_guide
from assistant.typography import fr_typography
from assistant.ui.discussion import LATEX
from assistant.ui.library import Library, parse_link
from assistant.ui.services import Services, french_error

_WELCOME = fr_typography("## Le guide\n\nChoisissez un chapitre dans la table des matières, ou cherchez une notion. "
            "Les liens des réponses et des parcours ouvrent ici la section citée.")


def toc_html(library: Library) -> str:
    e = html.escape
    out = ['<nav class="tuile-toc" aria-label="Table des matières">',
           '<p><a href="corpus/parcours.md">Parcours de lecture</a></p>']
    for part in library.parts:
        ready = sum(c.available for c in part.chapters)
        label = f"Partie {part.part}" if part.part.isdigit() else {"A": "Annexes", "R": "Ressources"}.get(part.part, part.part)
        head = f"{e(label)} · {e(fr_typography(part.title))}" if part.part.isdigit() else e(fr_typography(part.title))
        out.append(f'<details class="tuile-part" data-part="{e(part.part)}"{" open" if part.part in ("0", "1", "3") else ""}>'
                   f'<summary>{head} <span class="tuile-muted">({ready}/{len(part.chapters)})</span></summary><ol>')
        for c in part.chapters:
            if c.available:
                out.append(f'<li value="{c.chapter}"><a href="corpus/{e(c.path)}">{e(fr_typography(c.title))}</a></li>')
            else:
                out.append(f'<li value="{c.chapter}" class="tuile-absent">{e(fr_typography(c.title))} '
                           '<span class="tuile-muted">(à paraître)</span></li>')
        out.append("</ol></details>")
    out.append("</nav>")
    return "\n".join(out)


def open_link(services: Services, link: str) -> tuple[str, str]:
    """(viewer Markdown, the link actually opened) for a ``corpus/…`` link. A chapter of the
    plan not yet written says so; a path the plan does not know says it does not exist."""
    parsed = parse_link(link)
    if not parsed:
        return fr_typography(f"⚠ Lien non reconnu : « {link} ». Les liens du guide ont la forme "
                             "corpus/<partie>/<chapitre>.md#section."), ""
    path, anchor = parsed
    library = services.library
    try:
        text = library.chapter_markdown(path)
    except (FileNotFoundError, OSError):
        if library.is_planned(path):
            return fr_typography(f"## {library.title_of(path)}\n\nCe chapitre n'est pas encore écrit : "
                                 "il est annoncé dans le plan du guide (« à paraître » dans la table "
                                 "des matières)."), ""
        return fr_typography(f"## Chapitre introuvable\n\nCe chapitre n'existe pas : le guide n'a pas "
                             f"de chapitre « {html.escape(path)} ». Choisissez-en un dans la table des "
                             "matières, ou cherchez une notion."), ""
    except Exception as err:
        return f"⚠ {french_error(err)}", ""
    return text, f"corpus/{path}" + (f"#{anchor}" if anchor else "")


def search_markdown(services: Services, query: str) -> str:
    """The search box's answer: the sections found (links, plain-text snippets) or why none."""
    try:
        found = search_guide(services.retriever, query)
    except Exception as err:
        return f"⚠ {french_error(err)}"
    if not found.results:
        return html.escape(found.message, quote=False)
    e = html.escape
    n = len(found.results)
    items = "".join(f'<li><a href="{e(r.link)}">{e(r.label)}</a><br>'
                    f'<span class="tuile-muted tuile-snippet">{e(r.snippet)}</span></li>' for r in found.results)
    head = fr_typography(f"{n} section{'s' if n > 1 else ''} pour « {found.query} » :")
    return f'<p><strong>{e(head)}</strong></p>\n<ul class="tuile-results">{items}</ul>'


def build(services: Services) -> dict:
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=260, elem_id="tuile-guide-nav"):
            with gr.Row():
                query = gr.Textbox(placeholder="Une notion…", show_label=False, scale=4,
                                   elem_id="tuile-guide-search")
                go = gr.Button("Chercher", scale=1, min_width=80, size="md", variant="secondary", elem_id="tuile-guide-go")
            results = gr.Markdown("", elem_id="tuile-guide-results")
            try:
                toc = toc_html(services.library)
            except Exception as err:
                toc = f"<p>⚠ {html.escape(french_error(err))}</p>"
            gr.HTML(toc, elem_id="tuile-toc")
        with gr.Column(scale=3, elem_id="tuile-viewer-col"):
            viewer = gr.Markdown(_WELCOME, elem_id="tuile-viewer", latex_delimiters=LATEX)
    go.click(lambda q: search_markdown(services, q), query, results, api_visibility="private")
    query.submit(lambda q: search_markdown(services, q), query, results, api_visibility="private")
    return {"viewer": viewer}
