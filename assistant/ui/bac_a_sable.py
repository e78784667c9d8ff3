"""The Bac à sable tab: pick an exercise, edit its Triton kernel, run it, read the report.

``run`` is a generator: the submission runs in a thread through
``sandbox.runner.run_submission`` while the handler reports the place in the GPU queue
(``RunOptions.on_position``) and the time spent, then renders the ``KernelReport``:
verdict, a table of figures with their conditions, the bandwidth chart, the profiler's
figures and the diagnosis with links into the guide. Without a GPU the runner uses
Triton's interpreter, which checks correctness only; the tab says so.

The learner's code is kept per exercise in the browser (localStorage, key
``tuile-code:<exercise>``, written by the page's script on every edit): it comes back
after a reload or a switch of exercise, and changing « Point de départ » asks before
replacing edited code (declined: the code and the previous choice stay).
"""
from __future__ import annotations

import queue
import threading
import time

import gradio as gr

from assistant.typography import fr_typography
from assistant.ui import render
from assistant.ui.library import describe_link
from assistant.ui.services import Services, french_error

_STARTS = [("Squelette à compléter", "template"), ("Solution naïve (à améliorer)", "naive")]
_HEADERS = ["Mesure", "Valeur", "Conditions"]
_MAX_SOURCE = 100_000


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
    gpu = services.gpu_present()
    if gpu:
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

    def run(source, name, dt):
        empty = ("", gr.update(visible=False), "", "", gr.update(visible=False), "")
        if not name:
            yield (fr_typography("⚠ Choisissez d'abord un exercice."),) + empty
            return
        if not (source or "").strip():
            yield (fr_typography("⚠ Le code est vide : chargez le squelette de l'exercice et complétez-le."),) + empty
            return
        if len(source) > _MAX_SOURCE:
            yield (fr_typography(f"⚠ Le code est trop long ({render.fr_number(len(source), 0)} caractères ; "
                                 f"{render.fr_number(_MAX_SOURCE, 0)} au plus)."),) + empty
            return
        from sandbox.records import RunOptions
        events: queue.Queue = queue.Queue()
        # The UI always asks for profiler figures: the path-B exit test wants them, and the
        # runner only profiles on a GPU with ncu, after a correct, timed run.
        options = RunOptions(dtype=dt or None, profile=True, on_position=lambda n: events.put(("position", n)))

        def work():
            try:
                events.put(("done", services.runner()(source, name, options)))
            except Exception as err:   # the runner promises data, not exceptions; just in case
                events.put(("error", err))

        threading.Thread(target=work, daemon=True).start()
        t0, position = time.monotonic(), None
        where = "sur le GPU" if gpu else "dans l'interpréteur Triton (justesse seulement)"
        while True:
            try:
                kind, value = events.get(timeout=0.5)
            except queue.Empty:
                kind, value = "tick", None
            if kind == "position":
                position = value
            if kind in ("done", "error"):
                break
            elapsed = render.fr_number(time.monotonic() - t0, 0, "s")
            if position:
                line = (f"En file d'attente pour le GPU : **{position}** soumission"
                        f"{'s' if position > 1 else ''} avant la vôtre ({elapsed}).")
            else:
                line = f"Vérification en cours {where}… ({elapsed})"
            yield (fr_typography(line),) + empty
        if kind == "error":
            yield (f"⚠ {french_error(value)}",) + empty
            return
        report = value
        rows = render.figures_rows(report)
        items = report.diagnosis or (report.profile or {}).get("diagnosis")
        if items is None and report.mode == "gpu" and report.correct:
            try:
                from sandbox.diagnosis import diagnose
                items = diagnose(report.profile, report=report.to_dict())
            except Exception:
                items = None
        diag = render.diagnosis_markdown(report, items, lambda link: describe_link(services.library, link))
        check_lines = "\n".join(f"- {c}" for c in report.checks)
        yield ("", render.verdict_markdown(report), gr.update(value=rows, visible=bool(rows)),
               render.bandwidth_svg(report), diag, gr.update(visible=bool(check_lines)), check_lines)

    run_btn.click(run, [code, exercise, dtype], [status, verdict, figures, chart, diagnosis, checks_box, checks],
                  concurrency_limit=4, **private)
    return {"exercise": exercise, "start": start, "code": code, "dtype": dtype, "summary": summary, "load": load,
            "stored": stored, "pristine": pristine, "restore_js": _JS_RESTORE}
