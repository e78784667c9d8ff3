"""The Bac à sable tab: pick an exercise, edit its Triton kernel, run it, read the report.

``run`` is an async generator: the submission runs in a thread of its own through the
kernel backend (``gpupool``: this host's GPUs, or the Dask pool of GPU hosts when a
scheduler is configured), keyed by the browser session so that a learner has one
submission at a time; the handler shows the place in the queue, the host running it and
any notice (a lost host, a fallback), then renders the ``KernelReport``: where it ran,
verdict, a table of figures with their conditions, the bandwidth chart, the profiler's
figures and the diagnosis with links into the guide. Without a GPU the runner uses
Triton's interpreter, which checks correctness only; the tab says so.

The learner's code is kept per exercise in the browser (localStorage, key
``tuile-code:<exercise>``, written by the page's script on every edit): it comes back
after a reload or a switch of exercise, and changing « Point de départ » asks before
replacing edited code (declined: the code and the previous choice stay).
"""
from __future__ import annotations

import asyncio
import threading
import time

import gradio as gr

from assistant.typography import fr_typography
from assistant.ui import render
from assistant.ui.library import describe_link
from assistant.ui.services import Services, french_error

_STARTS = [("Squelette à compléter", "template"), ("Solution naïve (à améliorer)", "naive")]
_HEADERS = ["Mesure", "Valeur", "Conditions"]


def _exercises():
    from sandbox.exercises import list_exercises
    return list_exercises()


def _summary(ex) -> str:
    goal = (f"objectif : plus de {render.fr_number(ex.threshold_pct, 0, '%')} de la crête de la carte"
            if ex.threshold_pct else "sans objectif de débit")
    guide = f" Le chapitre qui l'enseigne : {ex.guide}." if ex.guide else ""
    return fr_typography(f"**{ex.title}** — `{ex.signature}` : {ex.summary} ({goal}).{guide}")


_RESTORED = fr_typography("_Votre code pour cet exercice, gardé dans ce navigateur, est rétabli ; "
                          "« Point de départ » le remplace, après confirmation._")
# Reads the code saved for the exercise; the Python side decides what the editor shows.
_JS_RESTORE = "(ex, st, stored) => [ex, st, window.tuileCode ? window.tuileCode.saved(ex) : '']"
# Asks before replacing edited code (window.confirm: keyboard and screen-reader friendly).
_JS_REPLACE = """(ex, st, decision, prev, code, pristine) => {
  if (st === prev) return [ex, st, 'same', prev, code, pristine];
  // The editor drops the source's final newline: compare without trailing blanks.
  const trim = (s) => (s || '').replace(/\\s+$/, '');
  const edited = trim(code) !== '' && trim(code) !== trim(pristine);
  const ok = !edited || window.confirm('Remplacer votre code par le nouveau point de départ\u202f? ' +
                                       'Vos modifications de cet exercice seront perdues.');
  if (ok && window.tuileCode) window.tuileCode.forget(ex);
  return [ex, st, ok ? 'replace' : 'keep', prev, code, pristine];
}"""
_JS_SAVE = "(code, ex, pristine) => { if (window.tuileCode) window.tuileCode.save(ex, code, pristine); }"


def build(services: Services) -> dict:
    try:
        exercises = _exercises()
        error = ""
    except Exception as err:
        exercises, error = [], french_error(err)
    names = [(f"{ex.title} ({ex.name})", ex.name) for ex in exercises]
    default = "transposition" if any(n == "transposition" for _, n in names) else (names[0][1] if names else None)
    pool = services.config.scheduler
    gpu = bool(pool) or services.gpu_present()
    if pool:
        mode = (f"✓ **Pool de GPU** ({pool})\u00a0: chaque soumission part vers un hôte GPU du pool, une "
                "seule mesure à la fois par GPU, une soumission à la fois par personne\u202f; votre place "
                "dans la file et l'hôte qui l'a mesurée s'affichent ici.")
    elif gpu:
        mode = ("✓ **GPU détecté** : la soumission est vérifiée, chronométrée et comparée à la crête de la "
                "carte ; une seule mesure à la fois par GPU (file d'attente).")
    else:
        mode = ("ℹ **Pas de GPU sur ce serveur** : le bac à sable vérifie **la justesse seulement**, dans "
                "l'interpréteur Triton sur CPU (petites formes, dont des formes impaires) ; ni temps ni débit.")
    gr.Markdown(fr_typography(mode) if not error else f"⚠ {error}", elem_id="tuile-sandbox-mode")
    # min_width: on a phone the three choices stack instead of squeezing labels onto arrows.
    with gr.Row(elem_id="tuile-sandbox-choices"):
        exercise = gr.Dropdown(names, value=default, label="Exercice", elem_id="tuile-exercise", scale=3,
                               min_width=220)
        start = gr.Dropdown(_STARTS, value="template", label="Point de départ", elem_id="tuile-start", scale=2,
                            min_width=220)
        dtype = gr.Dropdown([], value=None, label="Type", elem_id="tuile-dtype", scale=1, min_width=140)
    # The editor's bookkeeping, hidden: the code as loaded (to tell an edit), the code
    # saved in the browser, the previous « Point de départ », the learner's answer.
    pristine = gr.Textbox(visible="hidden", elem_id="tuile-code-pristine")
    stored = gr.Textbox(visible="hidden", elem_id="tuile-code-stored")
    prev_start = gr.Textbox("template", visible="hidden", elem_id="tuile-start-prev")
    decision = gr.Textbox(visible="hidden", elem_id="tuile-start-decision")
    summary = gr.Markdown("", elem_id="tuile-exercise-summary")
    code = gr.Code("", language="python", lines=22, max_lines=40, label="Votre noyau (Python + Triton)",
                   elem_id="tuile-code", interactive=True)
    run_btn = gr.Button("Lancer", variant="primary", elem_id="tuile-run")
    status = gr.Markdown("", elem_id="tuile-run-status")
    verdict = gr.Markdown("", elem_id="tuile-verdict")
    figures = gr.Dataframe(headers=_HEADERS, value=None, label="Chiffres et leurs conditions",
                           interactive=False, wrap=True, visible=False, elem_id="tuile-figures")
    chart = gr.HTML("", elem_id="tuile-chart")
    diagnosis = gr.Markdown("", elem_id="tuile-diagnosis")
    with gr.Accordion("Vérifications faites", open=False, visible=False) as checks_box:
        checks = gr.Markdown("")

    def load(name, which, saved=""):
        """The editor for ``name``: the learner's saved code if any, else the chosen start."""
        if not name:
            return "", gr.update(), "", ""
        try:
            from sandbox.exercises import get_exercise
            ex = get_exercise(name)
            source = ex.source(which or "template")
            dtypes = gr.update(choices=list(ex.dtypes), value=ex.dtypes[0])
            if saved and saved.strip() and saved.rstrip() != source.rstrip():
                return saved, dtypes, _summary(ex) + "\n\n" + _RESTORED, source
            return source, dtypes, _summary(ex), source
        except Exception as err:
            return gr.skip(), gr.skip(), f"⚠ {french_error(err)}", gr.skip()

    def replace(name, which, answer, prev, _code, _pristine):
        if answer == "same":
            return (gr.skip(),) * 6
        if answer == "keep":   # the learner said no: their code stays, and so does the choice
            return (gr.skip(),) * 5 + (gr.update(value=prev),)
        return (*load(name, which), which, gr.skip())

    private = dict(api_visibility="private")   # the API is app.py's named endpoints
    exercise.change(load, [exercise, start, stored], [code, dtype, summary, pristine], js=_JS_RESTORE, **private)
    start.change(replace, [exercise, start, decision, prev_start, code, pristine],
                 [code, dtype, summary, pristine, prev_start, start], js=_JS_REPLACE, **private)
    code.input(None, [code, exercise, pristine], None, js=_JS_SAVE)

    async def run(source, name, dt, request: gr.Request = None):
        empty = ("", gr.update(visible=False), "", "", gr.update(visible=False), "")
        from sandbox.validate import validate_request
        problems = validate_request(source or "", name, dt or None)
        if problems:   # the library's checks (exercise, dtype, size, syntax), French messages
            yield (fr_typography("⚠ " + problems[0].message[:1].upper() + problems[0].message[1:] + "."),) + empty
            return
        from sandbox.records import RunOptions
        loop = asyncio.get_running_loop()
        events: asyncio.Queue = asyncio.Queue()

        def tell(kind, value):
            loop.call_soon_threadsafe(events.put_nowait, (kind, value))

        # The UI always asks for profiler figures: the path-B exit test wants them, and the
        # runner only profiles on a GPU with ncu, after a correct, timed run.
        options = RunOptions(dtype=dt or None, profile=True)
        learner = getattr(request, "session_hash", "") or ""

        def work():
            try:
                tell("done", services.kernel_backend().run(source, name, options, learner=learner,
                                                            on_event=tell))
            except Exception as err:   # backends promise data, not exceptions; just in case
                tell("error", err)

        # A thread of its own, not one of the server's pool: a run waiting for a GPU holds
        # no server thread, so a class waiting on the pool never starves the chat.
        threading.Thread(target=work, daemon=True, name="tuile-kernel-run").start()
        t0, position, where, notices = time.monotonic(), None, "", []
        while True:
            try:
                kind, value = await asyncio.wait_for(events.get(), timeout=0.5)
            except asyncio.TimeoutError:
                kind, value = "tick", None
            if kind == "position":
                position = value
            elif kind == "own":
                position = "own"
            elif kind == "running":
                where, position = value, None
            elif kind == "notice":
                notices.append(value)
            if kind in ("done", "error"):
                break
            yield (fr_typography(render.kernel_progress(position, where, gpu, time.monotonic() - t0, notices)),) + empty
        if kind == "error":
            yield (f"⚠ {french_error(value)}",) + empty
            return
        run = value
        if run.report is None:
            yield (render.kernel_notices(run.notices) + f"⚠ {run.error}",) + empty
            return
        report = run.report
        rows = render.figures_rows(report)
        placed = render.kernel_notices(run.notices) + render.kernel_where(run)
        items = report.diagnosis or (report.profile or {}).get("diagnosis")
        if items is None and report.mode == "gpu" and report.correct:
            try:
                from sandbox.profile import diagnose
                items = diagnose(report.profile, report=report.to_dict())
            except Exception:
                items = None
        diag = render.diagnosis_markdown(report, items, lambda link: describe_link(services.library, link))
        check_lines = "\n".join(f"- {c}" for c in report.checks)
        yield (placed, render.verdict_markdown(report), gr.update(value=rows, visible=bool(rows)),
               render.bandwidth_svg(report), diag, gr.update(visible=bool(check_lines)), check_lines)

    run_btn.click(run, [code, exercise, dtype], [status, verdict, figures, chart, diagnosis, checks_box, checks],
                  concurrency_limit=services.config.ui_kernel_concurrency, **private)
    return {"exercise": exercise, "start": start, "code": code, "dtype": dtype, "summary": summary, "load": load,
            "stored": stored, "pristine": pristine, "restore_js": _JS_RESTORE}
