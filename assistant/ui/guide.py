"""Le guide tab: the table of contents by part, the chapter viewer, a search box.

Every link into the guide, from any tab, has the form ``corpus/<path>#anchor``; the page's
script hands it to ``open_link``, which renders the chapter (headings carry the anchors
of ``ingest.anchors.slugify``) and opens this tab, then the script scrolls to the section.
The search box lists the sections that ``Retriever.search`` finds.
"""
from __future__ import annotations

import html

import gradio as gr

from assistant.ui.discussion import LATEX
from assistant.ui.library import Library, parse_link
from assistant.ui.services import Services, french_error

_WELCOME = ("## Le guide\n\nChoisissez un chapitre dans la table des matières, ou cherchez une notion. "
            "Les liens des réponses et des parcours ouvrent ici la section citée.")


def toc_html(library: Library) -> str:
    e = html.escape
    out = ['<nav class="tuile-toc" aria-label="Table des matières">',
           '<p><a href="corpus/parcours.md">Parcours de lecture</a></p>']
    for part in library.parts:
        ready = sum(c.available for c in part.chapters)
        label = f"Partie {part.part}" if part.part.isdigit() else {"A": "Annexes", "R": "Ressources"}.get(part.part, part.part)
        head = f"{e(label)} · {e(part.title)}" if part.part.isdigit() else e(part.title)
        out.append(f'<details class="tuile-part" data-part="{e(part.part)}"{" open" if part.part in ("0", "1", "3") else ""}>'
                   f'<summary>{head} <span class="tuile-muted">({ready}/{len(part.chapters)})</span></summary><ol>')
        for c in part.chapters:
            if c.available:
                out.append(f'<li value="{c.chapter}"><a href="corpus/{e(c.path)}">{e(c.title)}</a></li>')
            else:
                out.append(f'<li value="{c.chapter}" class="tuile-absent">{e(c.title)} '
                           '<span class="tuile-muted">(à paraître)</span></li>')
        out.append("</ol></details>")
    out.append("</nav>")
    return "\n".join(out)


def open_link(services: Services, link: str) -> tuple[str, str]:
    """(viewer Markdown, the link actually opened) for a ``corpus/…`` link."""
    parsed = parse_link(link)
    if not parsed:
        return f"⚠ Lien non reconnu : « {link} ». Les liens du guide ont la forme corpus/<partie>/<chapitre>.md#section.", ""
    path, anchor = parsed
    try:
        text = services.library.chapter_markdown(path)
    except (FileNotFoundError, OSError):
        title = services.library.title_of(path)
        return (f"## {title}\n\nCe chapitre n'est pas encore écrit (« {path} » est absent du corpus). "
                "Il est annoncé dans le plan du guide.", "")
    except Exception as err:
        return f"⚠ {french_error(err)}", ""
    return text, f"corpus/{path}" + (f"#{anchor}" if anchor else "")


def search_markdown(services: Services, query: str) -> str:
    query = (query or "").strip()
    if not query:
        return "_Écrivez une notion à chercher, par exemple « coalescence » ou « tl.trans »._"
    if len(query) > 500:
        return f"⚠ La recherche est trop longue ({len(query)} caractères ; 500 au plus)."
    try:
        hits = services.retriever.search(query, k=8)
    except Exception as err:
        return f"⚠ {french_error(err)}"
    if not hits:
        return "Aucune section trouvée."
    lines = [f"**{len(hits)} sections** pour « {html.escape(query)} » :", ""]
    for hit in hits:
        snippet = " ".join(hit.text.split())[:160]
        lines.append(f"- [{hit.label}]({hit.link})  \n  <span class='tuile-muted'>{html.escape(snippet)}…</span>")
    return "\n".join(lines)


def build(services: Services) -> dict:
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=260, elem_id="tuile-guide-nav"):
            with gr.Row():
                query = gr.Textbox(placeholder="Chercher dans le guide…", show_label=False, scale=4,
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
    go.click(lambda q: search_markdown(services, q), query, results)
    query.submit(lambda q: search_markdown(services, q), query, results)
    return {"viewer": viewer}
