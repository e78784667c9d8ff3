"""The reading-path dialogue: two questions, prerequisite checks for path F, a recommendation.

``PathDialogue(corpus_dir).step(state, user_input)`` returns the new state and what to show.
The state is an explicit, serialisable record of the answers given so far
(``DialogueState.to_dict`` / ``from_dict``); everything else (the stage, the next question)
is derived from it, so "retour" simply drops the last answer and "recommencer" drops all.

Free answers are read offline, without an LLM, by ``assistant.paths.read.reading`` (clauses, negation,
concessions, spelling): a clear answer is settled, an unclear one gets a clarifying question
between the two likeliest options, one that contradicts itself ("je ne connais rien au GPU,
mais j'écris des noyaux Hopper") is asked about, an unknown one ("banane") gets "je n'ai pas
compris" with every option, an empty one a message; nothing already answered is lost. What an
answer says of path F's four prerequisites is kept with it: only the others are asked, and
the ones understood are named.

Two facts of one answer that cannot both be true ("je n'ai jamais programmé, je code en C++",
"comprendre sans écrire de code, mais écrire mon premier noyau": ``Reading.clash``) are never
settled: both are quoted back and the reader says which holds; the answer is then read again
without the other.

Invariant, checked by ``step`` before anything is shown (``assistant.paths.checks.guard``):
no recommendation that a fact the reader stated contradicts. Every settled free answer keeps
its words and is read again; the two answers are checked against each other (a goal the level
answer says no interest in, a goal the level answer's own wish speaks against ("je veux juste
comprendre sans coder", then "écrire mon premier noyau"), a first-person claim of the goal answer that the level's label
denies, a prerequisite one answer affirms and another denies: ``DialogueState.contested``,
asked); a level is checked against the prerequisites it supposes ("5", then "TMA jamais vu",
or "non" to the TMA question) and against answers that rule it out ("3", then "je n'ai jamais
écrit de kernel"; when the level was claimed in the reader's own words, the goal answer that
rules it out is the one asked again). Such a level or goal is asked again; chosen again, it stands (the reader's
last word).

The data (questions, options, reading rules, the six paths with their chapters, hours, exit
test, notes) lives in ``corpus/parcours.yaml`` and is checked at load against the chapter plan.
Limits: French and English only; the rules are patterns, so an answer in words they have never
seen gets a clarification, not a guess.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from assistant.data import general_words
from assistant.paths.checks import CLASH, claimed_against, conflicts, guard, resolve_clash
from assistant.paths.choice import SIM_MIN, PrototypeMatcher, direct_choice, normalise
from assistant.paths.read.clauses import Rules, clean
from assistant.paths.read.reading import Reading, read_answer
from assistant.paths.state import DialogueState
from assistant.paths.read.yesno import read_yes_no
from ingest.config import load_config
from ingest.corpus import load_plan
from ingest.errors import CorpusError

DATA_FILE = "parcours.yaml"
_BACK = re.compile(r"^(retour|revenir|precedent|back|annuler|undo)\b")
_RESTART = re.compile(r"^(recommencer|recommence|reprendre a zero|restart|reset|on recommence)\b")
# The e5 fallback reads only answers of this many words or more in which no word was
# recognised: one or two unknown words ("banane", "asdf") are not an answer.
_FALLBACK_MIN_WORDS = 4
# An answer about oneself ("je fais du PyTorch", "I'm a CTO") answers the level question even
# when it also reads as a goal; "pytorch plus rapide", with no one in it, answers the next one.
_FIRST_PERSON = re.compile(r"(?:^|\b)(?:je|j'|moi|on|nous|i|i'm|i've|im|me|we)(?:\b|(?<=')|$)")
_UNIT = 5    # minutes: the grain of the per-chapter reading times
# A wish or an act that makes a level-stage answer a goal answer ("rendre PyTorch plus rapide");
# without one, an answer with this much level evidence answers the level question.
_GOAL_VERB = re.compile(r"\b(?:accelerer|rendre|comprendre|ecrire|porter|faire|travailler|optimiser|apprendre|"
                        r"piger|savoir|veux|voudrais|aimerais|envie|speed|make|understand|write|port|learn|build|"
                        r"work|want|wanna|like to|serve|serving|deploy\w*|faster|plus vite|rapide)\b")
_BACKGROUND_MIN = 2.0

# An answer to one of these questions fits in a few sentences; past this, the spelling pass
# (every word against ~440 vocabulary words) would take seconds for nothing.
MAX_ANSWER = 2000
TOO_LONG = ("Votre réponse est trop longue ({n} caractères, {limit} au plus) : dites-la en quelques mots, "
            "par exemple « je connais PyTorch ».")
EMPTY = "Votre réponse est vide : choisissez l'une des réponses proposées ou écrivez quelques mots."
NOT_UNDERSTOOD = ("Je n'ai pas compris votre réponse « {text} ». Choisissez l'une des réponses proposées, "
                  "ou dites-le autrement (par exemple « je connais PyTorch »).")
NOT_UNDERSTOOD_GOAL = ("Je n'ai pas compris votre réponse « {text} ». Choisissez l'une des réponses proposées, "
                       "ou dites-le autrement (par exemple « rendre PyTorch plus rapide »).")
OFF_QUESTION = ("« {text} » répond plutôt à la question suivante, que je poserai ensuite ; "
                "d'abord, lequel de ces niveaux vous correspond ?")
NOT_SURE = "Je ne suis pas sûr d'avoir compris « {text} »."
CONTRADICTION = ("Votre réponse dit deux choses qui ne vont pas ensemble (« {a} » et « {b} ») : "
                 "laquelle vous correspond ?")
# Two facts of the reader's own words that cannot both be true, quoted back.
CLASH_QUESTION = "Laquelle de ces deux phrases est juste ? Vous pouvez aussi le dire autrement."
CONTESTED = "Une de vos réponses dit connaître {name}, une autre non."


@dataclass(frozen=True)
class Display:
    kind: str                    # "question", "clarification", "prerequisite", "recommendation"
    text: str                    # French text to show
    options: tuple[tuple[str, str], ...] = ()    # (value to send back, label)
    notice: str = ""             # e.g. "Je n'ai pas compris votre réponse « banane »."
    recommendation: dict | None = None
    topic: str = ""              # what the question is about: "level", "goal", "pre:<id>", "done"


class PathDialogue:
    def __init__(self, corpus_dir: Path | str | None = None) -> None:
        self.corpus_dir = Path(corpus_dir) if corpus_dir else load_config().corpus_dir
        self.data = load_paths(self.corpus_dir)
        plan = load_plan(self.corpus_dir)
        self.chapters = {c["id"]: c for c in plan["chapters"]}
        self.levels = self.data["levels"]["options"]
        self.goals = self.data["goals"]["options"]
        self.rules = Rules(self.data["reading"], self.levels + self.goals, _ordinary_words(self.corpus_dir),
                           _guide_words(self.corpus_dir))
        self._goal_by_letter = {g["path"]: g["id"] for g in self.goals}
        self._prototypes: dict[str, PrototypeMatcher] = {}

    def _matcher(self, stage: str) -> PrototypeMatcher:
        if stage not in self._prototypes:
            self._prototypes[stage] = PrototypeMatcher(self.levels if stage == "level" else self.goals)
        return self._prototypes[stage]

    # -- public entry -------------------------------------------------------------------
    def step(self, state: DialogueState | dict | None, user_input: str | None = None) -> tuple[DialogueState, Display]:
        """Apply one user input (``None`` to just show where the dialogue stands).

        An empty or blank answer changes nothing and says so."""
        state = state if isinstance(state, DialogueState) else DialogueState.from_dict(state)
        state = DialogueState(answers=[list(a) for a in state.answers], clarify=list(state.clarify),
                              pending=dict(state.pending), reopened=list(state.reopened), clash=list(state.clash))
        if user_input is None:
            return state, self._show(state, guard(self, state))
        text = str(user_input).strip()
        if not text:
            return state, self._show(state, EMPTY)
        if len(text) > MAX_ANSWER:
            return state, self._show(state, TOO_LONG.format(n=_thousands(len(text)), limit=_thousands(MAX_ANSWER)))
        norm = clean(text, self.rules)     # "reour" is still « retour »
        if _RESTART.match(norm):
            return DialogueState(), self._show(DialogueState())
        if _BACK.match(norm):
            if state.clarify or state.clash:
                state.clarify, state.pending, state.reopened, state.clash = [], {}, [], []
            elif state.answers:
                state.answers.pop()
            return state, self._show(state)
        notice = self._answer(state, text)
        notice = guard(self, state) or notice
        return state, self._show(state, notice)

    def read(self, stage: str, text: str) -> Reading:
        """How a free answer to the level or goal question is read (see ``assistant.paths.read.reading``)."""
        return read_answer(text, self.levels if stage == "level" else self.goals, self.rules)

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
            said = read_yes_no(text, self.rules, stage[4:])
            if said is None:
                return f"Je n'ai pas compris « {_short(text)} » : répondez par « oui » ou par « non »."
            state.answers.append([stage, said])
            return ""
        clash, state.clash = state.clash, []
        text, kept = resolve_clash(clash, text) if clash else (text, "")
        if kept and not self.read(stage, text).match.sure:
            text = kept     # the rest of the answer still hesitates: the fact picked alone
        options = self.levels if stage == "level" else self.goals
        letters = self._goal_by_letter if stage == "goal" else None
        offered = [o for o in options if o["id"] in state.clarify]
        picked = direct_choice(text, offered, None) if offered else None
        picked = picked or direct_choice(text, options, letters)
        if picked:
            facts = dict(state.pending)
            said_against = state.excluded() | {k[6:] for k, v in facts.items() if k.startswith("level:") and not v}
            if picked in state.clarify and (picked in state.reopened or (stage == "level" and picked in said_against)):
                facts[f"{stage}:{picked}"] = True     # chosen when asked about it: the reader's last word
            self._settle(state, stage, picked, facts)
            return ""
        reading = self.read(stage, text)
        if stage == "level" and (state.clarify or not _FIRST_PERSON.search(clean(text, self.rules))) and \
                self._answers_the_goal(text, reading):
            state.clash = clash
            return OFF_QUESTION.format(text=_short(text))
        facts = {**state.pending, **reading.facts} if state.clarify else dict(reading.facts)
        # What the answer states about the reader rules levels out, whichever question it
        # answers ("3", then "mon premier noyau, je n'ai jamais écrit de kernel").
        excludes = reading.excludes if stage == "level" else self.read("level", text).excludes
        facts.update({f"level:{o}": False for o in excludes})
        labels = {o["id"]: o["label"] for o in options}
        if reading.contradiction and len(reading.contradiction) == 2:
            state.clarify, state.pending = list(reading.contradiction), facts
            if reading.clash:
                return CLASH.format(a=reading.clash[0], b=reading.clash[1])
            a, b = reading.contradiction
            return CONTRADICTION.format(a=_lower_first(labels[a]), b=_lower_first(labels[b]))
        if reading.clash:
            # Two facts that cannot both be true, whatever option they point to ("je n'ai jamais
            # programmé" / "je code en C++"): never settled, the reader says which one holds.
            state.clarify, state.pending, state.clash = [], {}, [*reading.clash, text]
            return CLASH.format(a=reading.clash[0], b=reading.clash[1])
        match = reading.match
        if not reading.understood and len(text.split()) >= _FALLBACK_MIN_WORDS:
            # Words the rules do not know: the nearest example answers suggest two options to
            # choose from; they never settle the answer alone (on the dev dialogues, a settled
            # e5 guess was the one wrong confident pick left, "je fais de la data" -> PyTorch).
            ranked = self._matcher(stage).rank(text)
            if ranked[0][1] >= SIM_MIN:
                state.clarify, state.pending = [ranked[0][0], ranked[1][0]], facts
                return NOT_SURE.format(text=_short(text))
        if not reading.understood or match.option is None:
            if not state.reopened:      # a reopened level keeps its offer and its facts
                state.clarify, state.pending = [], {}
            state.clash = clash         # so does a question about two facts
            return (NOT_UNDERSTOOD if stage == "level" else NOT_UNDERSTOOD_GOAL).format(text=_short(text))
        if match.sure:
            if match.option in state.clarify and match.option in state.reopened:
                facts[f"{stage}:{match.option}"] = True     # said again when asked about it
            self._settle(state, stage, match.option, facts, text)
            return ""
        state.clarify, state.pending = match.likeliest(2), facts
        return ""

    def _answers_the_goal(self, text: str, reading: Reading) -> bool:
        """While a level is being clarified, "rendre PyTorch plus rapide" answers the next question.
        A background with no wish in it ("Fortran/MPI", "Fortran et MPI depuis 20 ans") answers
        the level it speaks for (paths_dev11: 3 of 135 were taken as goal answers)."""
        level_top = reading.match.ranked[0][1] if reading.match.ranked else 0.0
        if level_top >= _BACKGROUND_MIN and not _GOAL_VERB.search(clean(text, self.rules)):
            return False
        goal = self.read("goal", text).match
        return goal.sure and goal.ranked[0][1] > level_top

    def _settle(self, state: DialogueState, stage: str, option: str, facts: dict, text: str = "") -> None:
        # A free answer keeps its words, so that the check before a recommendation can read
        # them again (``checks.guard``); an explicit pick has none to check.
        state.answers.append([stage, option, facts, text] if text else [stage, option, facts] if facts else
                             [stage, option])
        state.clarify, state.pending, state.reopened, state.clash = [], {}, [], []

    def conflicts(self, state: DialogueState) -> tuple[list[str], bool]:
        """See ``assistant.paths.checks.conflicts``."""
        return conflicts(self, state)

    def claimed_against(self, state: DialogueState) -> tuple[str, str] | None:
        """See ``assistant.paths.checks.claimed_against``."""
        return claimed_against(self, state)

    def _pending_prerequisite(self, state: DialogueState) -> dict | None:
        """The first prerequisite of the chosen path that neither the reader's words nor a
        yes/no answer has settled: only those are asked."""
        path = self.data["paths"][self._path_letter(state.get("goal"))]
        facts = state.facts()
        return next((p for p in path.get("prerequisites", []) if p["id"] not in facts), None)

    def _path_letter(self, goal_id: str) -> str:
        return next(g["path"] for g in self.goals if g["id"] == goal_id)

    def _understood(self, state: DialogueState) -> str:
        """« Compris de votre réponse : vous savez ce qu'est un warp ; TMA : pas encore vu »."""
        stated = state.stated()
        path = self.data["paths"]["F"]
        parts = [p["known"] if stated[p["id"]] else f"{p['name']} : pas encore vu"
                 for p in path["prerequisites"] if p["id"] in stated]
        return f"Compris de votre réponse : {' ; '.join(parts)}." if parts else ""

    # -- showing ------------------------------------------------------------------------
    def _show(self, state: DialogueState, notice: str = "") -> Display:
        stage = self._stage(state)
        if stage in ("level", "goal"):
            block = self.data["levels" if stage == "level" else "goals"]
            if state.clash:
                return _display("clarification", CLASH_QUESTION, tuple((q, q) for q in state.clash[:2]), notice,
                                topic=stage)
            if state.clarify:
                offered = [o for o in block["options"] if o["id"] in state.clarify]
                names = " ou ".join(f"« {o['label']} »" for o in offered)
                return _display("clarification", f"Pour être sûr : vous voulez dire {names} ?",
                                tuple((o["id"], o["label"]) for o in offered), notice, topic=stage)
            return _display("question", block["question"], tuple((o["id"], o["label"]) for o in block["options"]),
                            notice, topic=stage)
        if stage.startswith("pre:"):
            pre = self._pending_prerequisite(state)
            path = self.data["paths"][self._path_letter(state.get("goal"))]
            asked = [a for a in state.answers if a[0].startswith("pre:")]
            intro = ""
            if not asked:
                intro = (f"Le parcours F suppose {len(path['prerequisites'])} prérequis (warp, mbarrier, copie TMA, "
                         "cudaDeviceSynchronize() entre deux noyaux) ; s'il en manque un, la page conseille de lire "
                         "d'abord CUDA moderne.")
                understood = self._understood(state)
                if understood:
                    intro += " " + understood + " Il reste à vérifier :"
            contested = (CONTESTED.format(name=pre["name"]),) if pre["id"] in state.contested() else ()
            lines = [x for x in (notice, intro, *contested) if x]
            return _display("prerequisite", pre["question"], (("oui", "Oui"), ("non", "Non")),
                            " ".join(lines), topic=stage)
        rec = self.recommend(state.get("level"), state.get("goal"), state.facts(),
                             asked=[a[0][4:] for a in state.answers if a[0].startswith("pre:")],
                             understood=self._understood(state))
        return _display("recommendation", rec["text"], (("retour", "Changer ma dernière réponse"),
                                                         ("recommencer", "Recommencer")), notice, rec, topic="done")

    def recommend(self, level: str, goal: str, prerequisites: dict[str, bool] | None = None,
                  asked: list[str] | None = None, understood: str = "") -> dict:
        """The recommendation for a (level, goal) pair, personalised to the level.

        ``prerequisites`` maps path F's prerequisites to known (True) or not (False); one
        not given counts as missing (the page: "si l'un des quatre manque").
        Hours: the page's figure for the path is shared evenly over its chapters, in whole
        minutes that add up to it; chapters put in front (CUDA moderne for a missing
        prerequisite) take the minutes their own path gives them and are added to the total.
        """
        level_opt = next(o for o in self.levels if o["id"] == level)
        goal_opt = next(o for o in self.goals if o["id"] == goal)
        letter = goal_opt["path"]
        path = self.data["paths"][letter]
        mastered = set(level_opt.get("masters", []))
        prerequisites = prerequisites or {}
        missing = [p for p in path.get("prerequisites", []) if not prerequisites.get(p["id"], False)]
        minutes = self._minutes(letter)
        steps = []
        if missing:
            before = path["before"]
            own = self._minutes_by_chapter(before["hours_from"]) if before.get("hours_from") else {}
            steps.append(self._step(before, set(), [own.get(c, 0) for c in before["chapters"]], before=True))
        offset = 0
        for i, step in enumerate(path["steps"]):
            compulsory_step = any(c in path.get("compulsory", []) for c in step["chapters"]) and i > 0 and \
                len(step["chapters"]) == 1
            share = minutes[offset:offset + len(step["chapters"])]
            offset += len(step["chapters"])
            steps.append(self._step(step, set() if compulsory_step else mastered, share))
        before_minutes = sum(c["minutes"] for s in steps if s["before"] for c in s["chapters"])
        total_minutes = round(path["hours"] * 60) + before_minutes
        remaining_minutes = sum(c["minutes"] for s in steps for c in s["chapters"] if not c["optional"])
        hours_text = path["hours_text"]
        if before_minutes:
            hours_text = (f"{path['hours_text']}, plus {duration(before_minutes)} de {path['before']['label']} "
                          f"à lire d'abord : {duration(total_minutes)} en tout")
        start = next((c for s in steps for c in s["chapters"] if not c["optional"]), steps[0]["chapters"][0])
        skipped = [c for s in steps for c in s["chapters"] if c.get("mastered")]
        reason = (f"Vous voulez « {_lower_first(goal_opt['label'])} » : c'est le parcours {letter}. "
                  f"Vous savez « {_lower_first(level_opt['label'])} » : le point de départ conseillé est "
                  f"« {level_opt['start']} ».")
        lines = [f"Parcours {letter} — {path['title']} ({hours_text}). {path['audience']}", reason]
        if skipped:
            count = "1 chapitre que votre niveau couvre déjà est marqué" if len(skipped) == 1 else \
                f"{len(skipped)} chapitres que votre niveau couvre déjà sont marqués"
            lines.append(f"{count} facultatif{'s' if len(skipped) > 1 else ''} : "
                         f"il reste environ {duration(remaining_minutes)} de lecture.")
        if path.get("prerequisites"):
            lines.append(self._prerequisite_line(path, missing, asked or [], understood))
        if path.get("note"):
            lines.append(path["note"])
        if path.get("exit_test"):
            lines.append(f"Test de sortie : {path['exit_test']}")
        lines.append(f"Commencez par : {start['title']}.")
        return {
            "path": letter, "title": path["title"], "hours": path["hours"], "hours_text": _fr(hours_text),
            "total_hours": total_minutes / 60, "remaining_hours": remaining_minutes / 60,
            "remaining_text": duration(remaining_minutes), "audience": path["audience"], "reason": _fr(reason),
            "level": level, "level_label": level_opt["label"], "level_start": level_opt["start"],
            "goal": goal, "goal_label": goal_opt["label"], "start": start,
            "steps": steps, "exit_test": path.get("exit_test", ""), "outcome": path.get("outcome", ""),
            "note": path.get("note", ""), "missing_prerequisites": [p["id"] for p in missing],
            "text": _fr("\n\n".join(lines)),
        }

    def _prerequisite_line(self, path: dict, missing: list[dict], asked: list[str], understood: str) -> str:
        head = f"{understood} " if understood else ""
        if missing:
            names = _join([p["name"] for p in missing])
            return (f"{head}Il manque {'un prérequis' if len(missing) == 1 else 'des prérequis'} du parcours F "
                    f"({names}) : lisez d'abord CUDA moderne, comme le conseille la page des parcours, "
                    "puis la partie 8.")
        how = "avec vous" if asked and not understood else ("d'après vos réponses" if asked else "d'après votre réponse")
        return f"{head}Prérequis vérifiés {how} : {path['prerequisites_text'].split(' : ', 1)[1]}"

    def _minutes(self, letter: str) -> list[int]:
        """Minutes per chapter of a path, in step order: the page's figure shared in 5-minute
        units (E: 15 h over 37 chapters gives 32 at 25 min and 5 at 20 min), so they add up to it."""
        path = self.data["paths"][letter]
        count = sum(len(s["chapters"]) for s in path["steps"])
        base, extra = divmod(round(path["hours"] * 60 / _UNIT), count)
        return [_UNIT * (base + (1 if i < extra else 0)) for i in range(count)]

    def _minutes_by_chapter(self, letter: str) -> dict[str, int]:
        ids = [c for s in self.data["paths"][letter]["steps"] for c in s["chapters"]]
        return dict(zip(ids, self._minutes(letter)))

    def _step(self, step: dict, mastered: set[str], minutes: list[int], before: bool = False) -> dict:
        chapters = []
        for cid, mins in zip(step["chapters"], minutes):
            entry = self.chapters[cid]
            is_mastered = cid in mastered
            chapters.append({"id": cid, "title": entry["title"], "path": entry["path"],
                             "link": f"corpus/{entry['path']}", "minutes": mins, "hours": mins / 60,
                             "time_text": duration(mins), "optional": is_mastered, "mastered": is_mastered})
        page_optional = bool(step.get("optional"))
        return {"label": step["label"], "chapters": chapters, "before": before, "page_optional": page_optional,
                "minutes": sum(c["minutes"] for c in chapters),
                "optional": all(c["optional"] for c in chapters)}


def _display(kind: str, text: str, options=(), notice: str = "", recommendation: dict | None = None,
             topic: str = "") -> Display:
    return Display(kind, _fr(text), tuple((v, _fr(label)) for v, label in options), _fr(notice), recommendation,
                   topic)


_FR_SPACE = [(re.compile(r"[ \u00a0\u202f]+([;?!])"), "\u202f\\1"), (re.compile(r"[ \u00a0\u202f]+:(?=\s|$)"), "\u00a0:"),
             (re.compile(r"«[ \u00a0\u202f]*"), "«\u00a0"), (re.compile(r"[ \u00a0\u202f]*»"), "\u00a0»"),
             (re.compile(r"(\d) (h|min|%)(?!\w)"), "\\1\u00a0\\2"), (re.compile(r"≈ "), "≈\u00a0")]


def _fr(text: str) -> str:
    """French typography for the dialogue's messages: U+202F before ; ? !, U+00A0 before : and inside
    « », and between a number and its unit (« ≈ 8 h », « 80 % »)."""
    for pattern, repl in _FR_SPACE:
        text = pattern.sub(repl, text)
    return text


def duration(minutes: int) -> str:
    """« 25 min », « 8 h », « 3 h 20 » (no-break spaces)."""
    minutes = int(round(minutes))
    h, m = divmod(minutes, 60)
    if not h:
        return f"{m}\u00a0min"
    return f"{h}\u00a0h" if not m else f"{h}\u00a0h\u00a0{m:02d}"


def _thousands(n: int) -> str:
    return f"{n:,}".replace(",", "\u202f")


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " et " + names[-1]


def _lower_first(label: str) -> str:
    return label[:1].lower() + label[1:]


def _everyday_texts() -> list[str]:
    """The everyday words of ``assistant/data/general_words.yaml``, one text per language."""
    return [" ".join(ws) for ws in general_words().values()]


def _ordinary_words(corpus_dir: Path) -> frozenset[str]:
    """Words spelt right, of five letters or more, folded: those of the guide's chapters (6,425
    on the whole guide; among them "jours", "prendre", "technique", which the spelling pass
    used to turn into "cours", "rendre", "mecanique") and the everyday words of
    ``assistant/data/general_words.yaml`` ("would" was turned into "world")."""
    words: set[str] = set()
    for path in sorted(Path(corpus_dir).glob("*/*.md")):
        words.update(re.findall(r"[a-z]{5,}", normalise(path.read_text(encoding="utf-8"))))
    for text in _everyday_texts():
        words.update(re.findall(r"[a-z]{5,}", normalise(text)))
    return frozenset(words)


def _guide_words(corpus_dir: Path) -> frozenset[str]:
    """Every plain word of the guide's chapters and of the everyday words, whatever its length,
    folded: the lexicon a prerequisite's clause must stay within to be read as affirming."""
    texts = [path.read_text(encoding="utf-8") for path in sorted(Path(corpus_dir).glob("*/*.md"))]
    texts += _everyday_texts()
    return frozenset(w for text in texts for w in re.findall(r"[a-z]+", normalise(text)))


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
            for entry in opt.get("patterns", []) + opt.get("when_denied", []) + opt.get("denied_by", []):
                pattern = entry[0]
                try:
                    re.compile(pattern)
                except re.error as err:
                    raise CorpusError(DATA_FILE, f"motif invalide « {pattern} » ({err})", field=opt["id"]) from None
            for cid in opt.get("masters", []) + ([opt["start_chapter"]] if "start_chapter" in opt else []):
                if cid not in known:
                    raise CorpusError(DATA_FILE, f"chapitre inconnu « {cid} »", field=opt["id"])
    reading = data.get("reading", {})
    rules = [reading.get(k, "") for k in ("neutral", "hedges", "partial")]
    rules += [d["pattern"] for d in reading.get("denials", []) + reading.get("novice", [])]
    rules += list(reading.get("prerequisites", {}).values())
    for pattern in rules:
        try:
            re.compile(pattern)
        except re.error as err:
            raise CorpusError(DATA_FILE, f"motif invalide « {pattern} » ({err})", field="reading") from None
    for letter, p in data["paths"].items():
        for step in p["steps"] + ([p["before"]] if "before" in p else []):
            for cid in step["chapters"]:
                if cid not in known:
                    raise CorpusError(DATA_FILE, f"le parcours {letter} cite un chapitre inconnu « {cid} »",
                                      field=step["label"])
    return data
