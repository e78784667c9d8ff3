"""The reading-path dialogue: two questions, prerequisite checks for path F, a recommendation.

``PathDialogue(corpus_dir).step(state, user_input)`` returns the new state and what to show.
The state is an explicit, serialisable record of the answers given so far
(``DialogueState.to_dict`` / ``from_dict``); everything else (the stage, the next question)
is derived from it, so "retour" simply drops the last answer and "recommencer" drops all.

The data (questions, options, the six paths with their chapters, hours, exit test, notes)
lives in ``corpus/parcours.yaml`` and is checked at load against the chapter plan.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from assistant.choice import PrototypeMatcher, direct_choice, match_with_fallback, normalise
from assistant.typography import fr_number
from ingest.config import load_config
from ingest.corpus import load_plan
from ingest.errors import CorpusError

DATA_FILE = "parcours.yaml"
_BACK = re.compile(r"^(retour|revenir|precedent|back|annuler|undo)\b")
_RESTART = re.compile(r"^(recommencer|recommence|reprendre a zero|restart|reset|on recommence)\b")
_YES = re.compile(r"^(oui|yes|y|o|ouais|bien sur|evidemment|absolument|tout a fait|je sais|je connais|"
                  r"of course|sure|yep|certainement|exactement|parfaitement|affirmatif)\b")
_NO = re.compile(r"^(non|no|n|nope|pas vraiment|pas du tout|jamais|aucune idee|je ne sais pas|je sais pas|"
                 r"non plus|pas sur|not really|i don'?t know|never|negatif)\b")


@dataclass
class DialogueState:
    answers: list[list] = field(default_factory=list)   # [[key, value], ...]: "level", "goal", "pre:<id>"
    clarify: list[str] = field(default_factory=list)    # option ids offered by a pending clarification

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> "DialogueState":
        data = data or {}
        return cls(answers=[list(a) for a in data.get("answers", [])], clarify=list(data.get("clarify", [])))

    def get(self, key: str):
        for k, v in self.answers:
            if k == key:
                return v
        return None


@dataclass(frozen=True)
class Display:
    kind: str                    # "question", "clarification", "prerequisite", "recommendation"
    text: str                    # French text to show
    options: tuple[tuple[str, str], ...] = ()    # (value to send back, label)
    notice: str = ""             # e.g. "Je n'ai pas bien compris."
    recommendation: dict | None = None


class PathDialogue:
    def __init__(self, corpus_dir: Path | str | None = None) -> None:
        self.corpus_dir = Path(corpus_dir) if corpus_dir else load_config().corpus_dir
        self.data = load_paths(self.corpus_dir)
        plan = load_plan(self.corpus_dir)
        self.chapters = {c["id"]: c for c in plan["chapters"]}
        self.levels = self.data["levels"]["options"]
        self.goals = self.data["goals"]["options"]
        self._goal_by_letter = {g["path"]: g["id"] for g in self.goals}
        self._prototypes: dict[str, PrototypeMatcher] = {}

    def _matcher(self, stage: str) -> PrototypeMatcher:
        if stage not in self._prototypes:
            self._prototypes[stage] = PrototypeMatcher(self.levels if stage == "level" else self.goals)
        return self._prototypes[stage]

    # -- public entry -------------------------------------------------------------------
    def step(self, state: DialogueState | dict | None, user_input: str | None = None) -> tuple[DialogueState, Display]:
        """Apply one user input (``None`` or "" to just show where the dialogue stands)."""
        state = state if isinstance(state, DialogueState) else DialogueState.from_dict(state)
        state = DialogueState(answers=[list(a) for a in state.answers], clarify=list(state.clarify))
        text = (user_input or "").strip()
        notice = ""
        if text:
            norm = normalise(text)
            if _RESTART.match(norm):
                return DialogueState(), self._show(DialogueState())
            if _BACK.match(norm):
                if state.clarify:
                    state.clarify = []
                elif state.answers:
                    state.answers.pop()
                return state, self._show(state)
            notice = self._answer(state, text)
        return state, self._show(state, notice)

    # -- answering ----------------------------------------------------------------------
    def _stage(self, state: DialogueState) -> str:
        if state.get("level") is None:
            return "level"
        if state.get("goal") is None:
            return "goal"
        pending = self._pending_prerequisite(state)
        return f"pre:{pending['id']}" if pending else "done"

    def _answer(self, state: DialogueState, text: str) -> str:
        stage = self._stage(state)
        if stage == "done":
            return "Le parcours est déjà choisi : « retour » pour changer une réponse, « recommencer » pour tout reprendre."
        if stage.startswith("pre:"):
            norm = normalise(text)
            if _NO.match(norm):
                state.answers.append([stage, False])
            elif _YES.match(norm):
                state.answers.append([stage, True])
            else:
                return "Répondez par « oui » ou par « non »."
            return ""
        options = self.levels if stage == "level" else self.goals
        letters = self._goal_by_letter if stage == "goal" else None
        offered = [o for o in options if o["id"] in state.clarify]
        picked = direct_choice(text, offered, None) if offered else None
        picked = picked or direct_choice(text, options, letters)
        if picked:
            state.answers.append([stage, picked])
            state.clarify = []
            return ""
        match = match_with_fallback(text, options, self._matcher(stage))
        if match.sure:
            state.answers.append([stage, match.option])
            state.clarify = []
            return ""
        state.clarify = match.likeliest(2) if match.option else []
        return "" if match.option else "Je n'ai pas bien compris ; choisissez l'une des réponses proposées."

    def _pending_prerequisite(self, state: DialogueState) -> dict | None:
        path = self.data["paths"][self._path_letter(state.get("goal"))]
        if not path.get("prerequisites") or state.get("level") in path.get("prerequisites_known_at", []):
            return None
        for pre in path["prerequisites"]:
            if state.get(f"pre:{pre['id']}") is None:
                return pre
        return None

    def _path_letter(self, goal_id: str) -> str:
        return next(g["path"] for g in self.goals if g["id"] == goal_id)

    # -- showing ------------------------------------------------------------------------
    def _show(self, state: DialogueState, notice: str = "") -> Display:
        stage = self._stage(state)
        if stage in ("level", "goal"):
            block = self.data["levels" if stage == "level" else "goals"]
            if state.clarify:
                offered = [o for o in block["options"] if o["id"] in state.clarify]
                names = " ou ".join(f"« {o['label']} »" for o in offered)
                return Display("clarification", f"Pour être sûr : vous voulez dire {names} ?",
                               tuple((o["id"], o["label"]) for o in offered), notice)
            return Display("question", block["question"], tuple((o["id"], o["label"]) for o in block["options"]),
                           notice)
        if stage.startswith("pre:"):
            pre = self._pending_prerequisite(state)
            path = self.data["paths"][self._path_letter(state.get("goal"))]
            return Display("prerequisite", pre["question"], (("oui", "Oui"), ("non", "Non")),
                           notice or path["prerequisites_text"])
        rec = self.recommend(state.get("level"), state.get("goal"),
                             {k[4:]: v for k, v in state.answers if k.startswith("pre:")})
        return Display("recommendation", rec["text"], (("retour", "Changer ma dernière réponse"),
                                                        ("recommencer", "Recommencer")), notice, rec)

    def recommend(self, level: str, goal: str, prerequisites: dict[str, bool] | None = None) -> dict:
        """The recommendation for a (level, goal) pair, personalised to the level."""
        level_opt = next(o for o in self.levels if o["id"] == level)
        goal_opt = next(o for o in self.goals if o["id"] == goal)
        letter = goal_opt["path"]
        path = self.data["paths"][letter]
        mastered = set(level_opt.get("masters", []))
        prerequisites = prerequisites or {}
        known_all = level in path.get("prerequisites_known_at", [])
        missing = [] if known_all else [p for p in path.get("prerequisites", []) if not prerequisites.get(p["id"], False)]

        total_chapters = sum(len(s["chapters"]) for s in path["steps"])
        per_chapter = path["hours"] / total_chapters
        steps = []
        if missing:
            steps.append(self._step(path["before"], set(), per_chapter=0.0, before=True))
        for i, step in enumerate(path["steps"]):
            compulsory_step = any(c in path.get("compulsory", []) for c in step["chapters"]) and i > 0 and \
                len(step["chapters"]) == 1
            steps.append(self._step(step, set() if compulsory_step else mastered, per_chapter))
        remaining = sum(c["hours"] for s in steps for c in s["chapters"] if not c["optional"])
        remaining = round(remaining * 2) / 2
        start = next((c for s in steps for c in s["chapters"] if not c["optional"]), steps[0]["chapters"][0])
        skipped = [c for s in steps for c in s["chapters"] if c.get("mastered")]
        reason = (f"Vous voulez « {_lower_first(goal_opt['label'])} » : c'est le parcours {letter}. "
                  f"Vous savez « {_lower_first(level_opt['label'])} » : le point de départ conseillé est "
                  f"« {level_opt['start']} ».")
        lines = [f"Parcours {letter} — {path['title']} ({path['hours_text']}). {path['audience']}", reason]
        if skipped:
            count = "1 chapitre que votre niveau couvre déjà est marqué" if len(skipped) == 1 else \
                f"{len(skipped)} chapitres que votre niveau couvre déjà sont marqués"
            lines.append(f"{count} facultatif{'s' if len(skipped) > 1 else ''} : "
                         f"il reste environ {_hours(remaining)} de lecture.")
        if missing:
            names = ", ".join(p["question"].removeprefix("Savez-vous ").rstrip(" ?") for p in missing)
            lines.append(f"Il manque un prérequis du parcours F ({names}) : lisez d'abord CUDA moderne, "
                         "comme le conseille la page des parcours, puis la partie 8.")
        if path.get("note"):
            lines.append(path["note"])
        if path.get("exit_test"):
            lines.append(f"Test de sortie : {path['exit_test']}")
        lines.append(f"Commencez par : {start['title']}.")
        return {
            "path": letter, "title": path["title"], "hours": path["hours"], "hours_text": path["hours_text"],
            "remaining_hours": remaining, "audience": path["audience"], "reason": reason,
            "level": level, "level_label": level_opt["label"], "level_start": level_opt["start"],
            "goal": goal, "goal_label": goal_opt["label"], "start": start,
            "steps": steps, "exit_test": path.get("exit_test", ""), "outcome": path.get("outcome", ""),
            "note": path.get("note", ""), "missing_prerequisites": [p["id"] for p in missing],
            "text": "\n\n".join(lines),
        }

    def _step(self, step: dict, mastered: set[str], per_chapter: float, before: bool = False) -> dict:
        chapters = []
        for cid in step["chapters"]:
            entry = self.chapters[cid]
            is_mastered = cid in mastered
            chapters.append({"id": cid, "title": entry["title"], "path": entry["path"],
                             "link": f"corpus/{entry['path']}", "hours": round(per_chapter, 2),
                             "optional": is_mastered, "mastered": is_mastered})
        page_optional = bool(step.get("optional"))
        return {"label": step["label"], "chapters": chapters, "before": before, "page_optional": page_optional,
                "optional": all(c["optional"] for c in chapters)}


def _lower_first(label: str) -> str:
    return label[:1].lower() + label[1:]


def _hours(value: float) -> str:
    return f"{fr_number(value, None)} h"


def load_paths(corpus_dir: Path | str) -> dict:
    """Load ``parcours.yaml`` and check it: every step resolves to a planned chapter."""
    path = Path(corpus_dir) / DATA_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(DATA_FILE, "fichier des parcours absent") from None
    except yaml.YAMLError as err:
        raise CorpusError(DATA_FILE, f"YAML invalide ({err})") from None
    known = {c["id"] for c in load_plan(corpus_dir)["chapters"]}
    for block in ("levels", "goals"):
        for opt in data[block]["options"]:
            for pattern, _ in opt.get("patterns", []):
                try:
                    re.compile(pattern)
                except re.error as err:
                    raise CorpusError(DATA_FILE, f"motif invalide « {pattern} » ({err})", field=opt["id"]) from None
            for cid in opt.get("masters", []) + ([opt["start_chapter"]] if "start_chapter" in opt else []):
                if cid not in known:
                    raise CorpusError(DATA_FILE, f"chapitre inconnu « {cid} »", field=opt["id"])
    for letter, p in data["paths"].items():
        for step in p["steps"] + ([p["before"]] if "before" in p else []):
            for cid in step["chapters"]:
                if cid not in known:
                    raise CorpusError(DATA_FILE, f"le parcours {letter} cite un chapitre inconnu « {cid} »",
                                      field=step["label"])
    return data
