"""Small render helpers of the web UI: records in, Markdown or HTML out. No Gradio here.

Each function turns one record of the library (``Answer``, a path recommendation,
``KernelReport``) into what a tab shows, so the tabs stay wiring and these stay testable
without a browser. Links into the guide keep the form ``corpus/<path>#anchor``: the
page's script opens them in the chapter viewer.
"""
from __future__ import annotations

import html
import re
from typing import Callable

from assistant import typography
from assistant.paths import duration
from assistant.typography import fr_typography
from assistant.ui.library import guide_links

_MARK = re.compile(r"\[(\d+)\](?!\()")


def fr_number(value: float | None, digits: int = 1, unit: str = "") -> str:
    """French formatting: 4 814,0 (narrow no-break space, decimal comma), then the unit
    after a no-break space; None -> « inconnu »."""
    if value is None:
        return "inconnu"
    text = typography.fr_number(value, digits)
    return f"{text}\u00a0{unit}" if unit else text


# -------------------------------------------------------------------- Discussion

def answer_markdown(answer) -> str:
    """The final answer's Markdown with each « [n] » turned into a link to its section, the
    links that quoted sentences carry (relative to their chapter) into the guide, and
    French spacing."""
    links = {c.n: c.link for c in answer.citations if c.n}
    paths = {c.n: c.path for c in answer.citations if c.n}
    text = answer.text

    def link(m: re.Match) -> str:
        n = int(m.group(1))
        # « [[n]](link) »: an escaped bracket would open display math (KaTeX delimiters).
        return f"[[{n}]]({links[n]})" if n in links else m.group(0)

    # A quoted sentence ends with its mark: the text before « [n] » comes from citation n's
    # chapter, so its relative links resolve against that chapter's file.
    pieces, last = [], 0
    for m in _MARK.finditer(text):
        base = paths.get(int(m.group(1)), _ANY_CHAPTER)
        pieces.append(guide_links(text[last:m.start()], base))
        pieces.append(link(m) if links else m.group(0))
        last = m.end()
    pieces.append(guide_links(text[last:], _ANY_CHAPTER))
    body = "".join(pieces)
    if answer.notice:
        body = f"_{answer.notice}_\n\n{body}"
    return fr_typography(body)


def streamed_markdown(text: str) -> str:
    """Text shown while the answer streams: French spacing, guide links resolved."""
    return fr_typography(guide_links(text, _ANY_CHAPTER))


# Every chapter sits one folder deep (``03-performance/07-transposition.md``), so a
# sentence whose chapter is unknown resolves « ../01-fondations/x.md » like any of them.
_ANY_CHAPTER = "00-resume/00.md"


def sources_markdown(answer, excerpt: Callable[[str, str], str] | None = None) -> str:
    """The « Sources » panel: each cited section with the passages quoted from it.

    Composed answers quote sentences verbatim (``answer.quotes``); for an LLM answer the
    section's opening is shown, read from the guide by ``excerpt(path, anchor)``.
    """
    if answer is None:
        return _SOURCES_EMPTY
    if answer.kind == "refusal" and answer.suggestions:
        lines = ["**Le guide ne traite pas cette question.** Les chapitres les plus proches :", ""]
        lines += [f"- [{c.label}]({c.link})" for c in answer.suggestions]
        return fr_typography("\n".join(lines))
    if not answer.citations:
        return _SOURCES_EMPTY
    return fr_typography(_sources(answer, excerpt))


def _sources(answer, excerpt) -> str:
    lines = []
    for c in answer.citations:
        lines.append(f"**[{c.n}]** [{c.label}]({c.link})")
        quoted = [q.text for q in answer.quotes if q.n == c.n]
        if not quoted and excerpt is not None:
            text = excerpt(c.path, c.anchor)
            quoted = [text] if text else []
        for q in quoted:
            lines.append("> " + guide_links(" ".join(q.split()), c.path))
            lines.append(">")
        if lines[-1] == ">":
            lines.pop()
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


_SOURCES_EMPTY = fr_typography("_Les passages cités par la réponse s'afficheront ici._")


# -------------------------------------------------------------------- Parcours

def recommendation_html(rec: dict, ticked: set[str] | list[str]) -> str:
    """The recommended path as a checklist of linked chapters with their hours."""
    ticked = set(ticked or ())
    e = html.escape
    out = [f'<div id="tuile-checklist" class="tuile-checklist" data-parcours="{e(rec["path"])}">',
           f'<h3>Parcours {e(rec["path"])} — {e(fr_typography(rec["title"]))} <span class="tuile-muted">'
           f'({e(rec["hours_text"])})</h3>']
    for n, step in enumerate(rec["steps"], 1):
        tag = (" <em>(à lire d'abord)</em>" if step["before"] else
               " <em>(facultatif)</em>" if step["optional"] or step["page_optional"] else "")
        out.append(f'<div class="tuile-step"><div class="tuile-step-label">{n}. {e(fr_typography(step["label"]))}{tag}</div><ul>')
        for ch in step["chapters"]:
            checked = " checked" if ch["id"] in ticked else ""
            note = ' <span class="tuile-muted">— facultatif, déjà acquis</span>' if ch["optional"] else ""
            hours = f' <span class="tuile-hours">{e(ch["time_text"])}</span>' if ch.get("time_text") else ""
            out.append(f'<li><label><input type="checkbox" class="tuile-lu" data-id="{e(ch["id"])}"{checked}> '
                       f'</label><a href="{e(ch["link"])}">{e(fr_typography(ch["title"]))}</a>{hours}{note}</li>')
        out.append("</ul></div>")
    if rec.get("exit_test"):
        out.append(f'<p class="tuile-exit"><strong>Test de sortie\u00a0:</strong> {e(fr_typography(rec["exit_test"]))}</p>')
    out.append("</div>")
    return "\n".join(out)


def progress_markdown(rec: dict | None, ticked: set[str] | list[str]) -> str:
    """« 3 chapitres lus sur 12 · il reste environ 14 h » for the recommended path."""
    if not rec:
        return ""
    ticked = set(ticked or ())
    chapters = [c for s in rec["steps"] for c in s["chapters"] if not c["optional"]]
    done = [c for c in chapters if c["id"] in ticked]
    # written as the recommendation writes it (« 11 h 30 »), to the quarter hour
    left = round(sum(c["hours"] for c in chapters if c["id"] not in ticked) * 4) * 15
    if chapters and len(done) == len(chapters):
        return fr_typography(f"**Parcours terminé :** les {len(chapters)} chapitres sont cochés. Passez le test de sortie !")
    return fr_typography(f"**Progression :** {len(done)} chapitre{'s' if len(done) > 1 else ''} lu{'s' if len(done) > 1 else ''} "
            f"sur {len(chapters)} · il reste environ {duration(left)} de lecture "
            "(cochés dans ce navigateur, gardés entre deux visites).")


# -------------------------------------------------------------------- Bac à sable

# Symbols from common text fonts (DejaVu, Liberation): colour emoji are missing on many
# Linux hosts and would show as empty boxes.
_VERDICT = {
    "pass": ("✓", "Réussi"),
    "fail": ("⚠", "Juste, mais sous l'objectif"),
    "incorrect": ("✗", "Résultat faux"),
    "error": ("✗", "Refusé ou en erreur"),
    "not_timed": ("✓", "Juste"),
    "no_target": ("✓", "Juste"),
}


def kernel_progress(position, where: str, gpu: bool, elapsed_s: float, notices=()) -> str:
    """The status line while a submission waits or runs: its place in the queue (an int),
    ``"own"`` while the learner's previous submission runs, else where it runs."""
    head = kernel_notices(notices)
    elapsed = fr_number(elapsed_s, 0, "s")
    if position == "own":
        return head + (f"Votre soumission précédente est encore en cours\u202f; celle-ci partira "
                       f"juste après ({elapsed}).")
    if position:
        return head + (f"En file d'attente pour le GPU\u00a0: **{position}** soumission"
                       f"{'s' if position > 1 else ''} avant la vôtre ({elapsed}).")
    how = "sur le GPU" if gpu else "dans l'interpréteur Triton (justesse seulement)"
    host = f", hôte **{where}**" if where else ""
    return head + f"Vérification en cours {how}{host}… ({elapsed})"


def kernel_notices(notices) -> str:
    """What the user must know about where the run went (a lost host, a fallback)."""
    return "".join(f"ℹ {n}\n\n" for n in notices or ())


def kernel_where(run) -> str:
    """« Exécutée sur : hôte · GPU 1 (NVIDIA H200) », and the attempt when it ran twice."""
    again = " (deuxième essai)" if getattr(run, "attempts", 1) > 1 else ""
    waited = f"\u202f; attente {fr_number(run.waited_s, 0, 's')}" if run.waited_s >= 0.5 else ""
    return f"Exécutée sur\u00a0: **{run.where}**{again}{waited}"


# What each ``KernelReport.error_kind`` is called in the page: the codes stay internal.
ERROR_HEADINGS = {
    "unknown_exercise": "Exercice inconnu",
    "options": "Options refusées",
    "syntax": "Erreur de syntaxe",
    "precheck": "Refusé avant l'exécution",
    "import": "Erreur au chargement du module",
    "contract": "Le contrat de la soumission n'est pas respecté",
    "compile": "Erreur de compilation Triton",
    "runtime": "Erreur pendant l'exécution",
    "torch_ops": "Calcul fait par PyTorch, pas par un noyau Triton",
    "no_kernel": "Aucun noyau Triton lancé",
    "side_stream": "Noyau lancé sur un autre flux CUDA",
    "input_modified": "Une entrée a été modifiée",
    "mismatch": "Résultat faux",
    "impossible_time": "Temps impossible",
    "timeout": "Temps limite dépassé",
    "crashed": "Le processus de la soumission s'est arrêté net",
    "internal": "Panne du bac à sable",
}
_CRASH_SIGNALS = ("SIGSEGV", "SIGBUS", "SIGABRT", "signal 11", "segmentation")
CRASH_HINT = ("Un tel arrêt vient le plus souvent d'un accès mémoire hors des tenseurs : un masque "
              "manquant ou faux (par exemple `cols <= N` au lieu de `cols < N`), ou un décalage mal "
              "calculé. Vérifiez les masques de chaque `tl.load` et `tl.store`.")


def verdict_markdown(report) -> str:
    """Verdict, then the error under a French heading (never the internal code), each
    message once, and a hint for a crash that the report does not explain."""
    icon, head = _VERDICT.get(report.verdict, ("•", report.verdict or "Résultat"))
    where = (f"GPU {report.device_name}" if report.mode == "gpu"
             else "interpréteur Triton sur CPU : justesse seulement")
    lines = [f"### {icon} {head}", f"Exercice **{report.exercise}** ({report.dtype or '?'}) — {where}.", ""]
    shown: list[str] = []
    if report.error_kind:
        heading = ERROR_HEADINGS.get(report.error_kind, "Erreur")
        line = f" (ligne {report.error_line})" if report.error_line else ""
        if heading != head or line:   # « ✗ Résultat faux » is heading enough
            lines += [f"**{heading}{line}**", ""]
        shown.append(report.error.strip())
        lines.append(_message_html(report.error))
        if report.error_kind == "crashed" and _unexplained_crash(report.error):
            lines += ["", CRASH_HINT]
    elif report.verdict_text:
        shown.append(report.verdict_text.strip())
        lines.append(_message_html(report.verdict_text))
    for m in report.mismatches[:3]:
        if m.message and not any(_same(m.message, s) for s in shown):
            shown.append(m.message)
            lines.append(f"- {_message_html(m.message, tag='span')}")
    return fr_typography("\n".join(lines))


def _same(a: str, b: str) -> bool:
    def norm(s):
        return " ".join(s.replace("\u00a0", " ").replace("\u202f", " ").split()).rstrip(".").casefold()
    na, nb = norm(a), norm(b)
    return na == nb or (len(na) > 40 and (na in nb or nb in na))


def _unexplained_crash(text: str) -> bool:
    return any(s in text for s in _CRASH_SIGNALS) and "masque" not in text


def _message_html(text: str, tag: str = "div") -> str:
    """A message of the sandbox as text (its ``_`` and ``*`` are not Markdown), lines kept."""
    body = "<br>".join(html.escape(x, quote=False) for x in text.strip().split("\n"))
    return f'<{tag} class="tuile-message">{body}</{tag}>'


def _shape(shape) -> str:
    return " × ".join(str(s) for s in shape) if shape else "?"


def figures_rows(report) -> list[list[str]]:
    """Rows (figure, value, conditions) of the report's table; every figure with its conditions."""
    r = report
    rows: list[list[str]] = []
    if r.shapes_checked:
        rows.append(["Justesse", "juste" if r.correct else "fausse",
                     f"formes {', '.join(_shape(s) for s in r.shapes_checked)} ; "
                     f"types {', '.join(r.dtypes_checked) or r.dtype}"])
    if r.median_us is not None:
        cond = f"{_shape(r.timing_shape)} {r.dtype}, {r.repetitions} répétitions"
        rows.append(["Temps médian", fr_number(r.median_us, 1, "µs"),
                     f"{cond} ; p10 {fr_number(r.p10_us, 1)}, p90 {fr_number(r.p90_us, 1)} µs"])
        rows.append(["Octets comptés", fr_number(r.bytes_counted, 0) if r.bytes_counted is not None else "inconnu",
                     r.bytes_note])
        rows.append(["Débit effectif", fr_number(r.gbps, 0, "Go/s"), "octets comptés / temps médian"])
        if r.tflops:
            rows.append(["Calcul", fr_number(r.tflops, 1, "TFLOP/s"), "opérations flottantes / temps médian"])
        rows.append(["Plafond de copie", fr_number(r.copy_ceiling_gbps, 0, "Go/s"),
                     "grande copie sur la même carte, même exécution"])
        rows.append(["Crête de la carte", fr_number(r.peak_gbps_card, 0, "Go/s"),
                     f"2 × horloge mémoire × largeur du bus, lue sur {r.device_name or 'la carte'}"])
        rows.append(["Crête (fiche technique)", fr_number(r.peak_gbps_datasheet, 0, "Go/s"), "table du fabricant"])
        rows.append(["% de la crête", fr_number(r.pct_of_peak, 1, "%"), f"crête retenue : {r.peak_source or 'inconnue'}"])
        rows.append(["% du plafond de copie", fr_number(r.pct_of_copy_ceiling, 1, "%"), "débit / plafond de copie"])
        if r.floor_us is not None:
            rows.append(["Temps plancher", fr_number(r.floor_us, 1, "µs"), "octets comptés / crête : rien n'est plus rapide"])
    if r.threshold_pct is not None:
        rows.append(["Objectif de l'exercice", fr_number(r.threshold_pct, 0, "%"), "de la crête de la carte"])
    if r.wall_s is not None:
        rows.append(["Durée totale", fr_number(r.wall_s, 1, "s"), "vérification, mesures et file d'attente comprises"])
    return [[fr_typography(cell) for cell in row] for row in rows]


def bandwidth_svg(report) -> str:
    """A bar chart (inline SVG): achieved bandwidth, copy ceiling and the card's peak, with
    the exercise's threshold drawn as a dashed line; a short note when nothing was timed."""
    r = report
    peak = r.peak_gbps_card or r.peak_gbps_datasheet
    if r.gbps is None or not peak:
        why = ("pas de mesure de débit : l'interpréteur sur CPU vérifie la justesse seulement"
               if r.mode != "gpu" else "pas de mesure de débit pour cette exécution")
        return f'<p class="tuile-muted">Graphique du débit : {html.escape(why)}.</p>'
    bars = [("Votre noyau", r.gbps, "#2563eb"), ("Plafond de copie", r.copy_ceiling_gbps, "#64748b"),
            ("Crête de la carte", peak, "#0f172a")]
    bars = [b for b in bars if b[1] is not None]
    top = max(v for _, v, _ in bars) * 1.1
    width, height, left, bar_h, gap = 640, 40 + 46 * len(bars), 150, 28, 18
    scale = (width - left - 90) / top
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="tuile-chart" viewBox="0 0 {width} {height}" '
             f'width="100%" style="max-width:{width}px" aria-label="Débit atteint comparé au plafond de copie et à la crête">']
    y = 20
    for label, value, color in bars:
        w = max(2.0, value * scale)
        parts.append(f'<text x="{left - 8}" y="{y + bar_h * 0.68}" text-anchor="end" font-size="13" fill="currentColor">{html.escape(label)}</text>')
        parts.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{color}" rx="3"/>')
        parts.append(f'<text x="{left + w + 6:.1f}" y="{y + bar_h * 0.68}" font-size="13" fill="currentColor">{html.escape(fr_number(value, 0, "Go/s"))}</text>')
        y += bar_h + gap
    if r.threshold_pct:
        tx = left + peak * r.threshold_pct / 100 * scale
        parts.append(f'<line x1="{tx:.1f}" y1="10" x2="{tx:.1f}" y2="{y - gap + 6}" stroke="#dc2626" stroke-width="2" stroke-dasharray="6 4"/>')
        parts.append(f'<text x="{tx:.1f}" y="{y + 10}" text-anchor="middle" font-size="12" fill="#dc2626">'
                     f'objectif {html.escape(fr_number(r.threshold_pct, 0, "%"))} de la crête</text>')
    parts.append("</svg>")
    return "".join(parts)


_METRIC_FR = {
    "launches_profiled": "lancements profilés",
    "load_sectors_per_request": "secteurs par requête de lecture",
    "store_sectors_per_request": "secteurs par requête d'écriture",
    "dram_bytes_read": "octets lus en DRAM",
    "dram_bytes_write": "octets écrits en DRAM",
    "ideal_bytes": "octets nécessaires (idéal)",
    "achieved_occupancy": "occupancy atteinte (%)",
}


def diagnosis_markdown(report, diagnosis=None, describe: Callable[[str], str] | None = None) -> str:
    """Profiler figures and the diagnosis, with links into the guide.

    ``diagnosis``: the items to show (default: the report's); ``describe(link)``: the
    label of a guide link (chapter › section), else the link itself.
    """
    lines: list[str] = []
    profile = report.profile or {}
    if profile:
        if not profile.get("available"):
            lines.append(f"_Profileur (Nsight Compute) : {profile.get('reason') or 'indisponible'}._")
            lines.append("")
        metrics = {k: v for k, v in (profile.get("metrics") or {}).items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if metrics:
            cond = f"{_shape(profile.get('shape') or [])} {profile.get('dtype') or report.dtype}, un appel"
            lines += [f"**Chiffres du profileur** ({cond})", "", "| Mesure | Valeur |", "| --- | --- |"]
            lines += [f"| {_METRIC_FR.get(k, k)} | {fr_number(float(v), 0 if float(v).is_integer() else 2)} |"
                      for k, v in metrics.items()]
            lines.append("")
    icons = {"alerte": "⚠", "info": "ℹ", "ok": "✓"}
    items = diagnosis if diagnosis is not None else (report.diagnosis or profile.get("diagnosis") or [])
    if items:
        lines += ["**Diagnostic**", ""]
    for item in items:
        lines.append(f"{icons.get(item.get('severity'), '•')} **{item.get('title', '')}** — {item.get('detail', '')}")
        rendered = []
        for link in item.get("links") or []:
            target = link if str(link).startswith(("corpus/", "http")) else f"corpus/{link}"
            label = describe(target) if describe else target
            rendered.append(f"[{label}]({target})")
        if rendered:
            lines.append("")
            lines.append("Lire : " + " · ".join(rendered))
        lines.append("")
    if not lines:
        if report.mode != "gpu":
            return fr_typography("_Profil et diagnostic : il faut un GPU (Nsight Compute) ; "
                                 "l'interpréteur vérifie la justesse seulement._")
        return "_Pas de profil pour cette exécution._"
    return fr_typography("\n".join(lines))
