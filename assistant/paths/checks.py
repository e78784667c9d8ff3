"""The checks before any recommendation of the reading-path dialogue: never one that a fact
the reader stated contradicts.

``guard(dialogue, state)`` is called by ``PathDialogue.step`` before anything is shown; it
returns "" when the settled answers hold together, else a French notice, having put the state
back to a question: a settled free answer whose words clash is read again and asked about
(``_recheck``); a goal the level answer says no interest in (``_goal_denied``) or wishes
against (``_goal_elsewhere``) is asked again;
a level that the goal answer's first-person claims deny (``claimed_against``), a prerequisite
it supposes that the reader denies, or an answer that rules it out (``conflicts``) is asked
again, between itself and the level the words allow; but a level the reader claimed in their
own words that only the goal answer's stated fact rules out ("j'ai écrit plein de noyaux", then
"mon tout premier noyau, j'en ai jamais fait") asks the goal again (``_goal_against_claim``). An
option chosen again when asked about it stands: the reader's last word. ``resolve_clash`` reads
the answer to a question about two facts. Limits: the two answers are compared with each other only, one pair of facts at a time.
"""
from __future__ import annotations

import re
from typing import Protocol

from assistant.paths.choice import normalise
from assistant.paths.read.clauses import SPLIT, Rules, clean
from assistant.paths.read.quotes import source_span
from assistant.paths.read.reading import Reading
from assistant.paths.state import DialogueState


class Dialogue(Protocol):
    """What the checks read of the dialogue (``PathDialogue``): its options, rules and data,
    and how it reads an answer. Named here so that this module does not import the dialogue,
    which imports it."""
    levels: list[dict]
    goals: list[dict]
    rules: Rules
    data: dict

    def read(self, stage: str, text: str) -> Reading: ...


CLASH = "Vous dites « {a} » et aussi « {b} » : ces deux choses ne vont pas ensemble."
LEVEL_VS_WORDS = ("Vous avez choisi « {level} », mais ce que vous dites ensuite ne va pas avec ce niveau : "
                  "lequel de ces niveaux vous correspond ?")
GOAL_VS_WORDS = ("Vous avez choisi « {goal} », mais vous dites aussi « {words} » : ces deux choses ne vont pas "
                 "ensemble.")
LEVEL_VS_CLAIM = ("Vous avez choisi « {level} », mais vous dites aussi « {words} » : ces deux choses ne vont pas "
                  "ensemble. Lequel de ces niveaux vous correspond ?")
GOAL_VS_WISH = ("Vous avez choisi « {goal} », mais vous disiez vouloir « {words} » : lequel de ces objectifs "
                "vous correspond ?")
LEVEL_VS_FACT = ("Vous avez choisi « {level} », mais vous dites ne pas connaître {names}, que ce niveau "
                 "suppose : lequel de ces niveaux vous correspond ?")


def conflicts(dialogue: Dialogue, state: DialogueState) -> tuple[list[str], bool]:
    """What the reader's own words say against the settled level: the prerequisites it
    supposes that they deny ("5", then "TMA jamais vu"), and whether an answer rules the
    level out ("3", then "je n'ai jamais écrit de noyau"). A level chosen again when asked
    about it stands: the reader's last word wins."""
    level = state.get("level")
    if level is None:
        return [], False
    answer = next(a for a in state.answers if a[0] == "level")
    if len(answer) > 2 and answer[2].get(f"level:{level}") is True:
        return [], False
    # A "non" to a prerequisite's own question counts as much as the reader's words: "5",
    # then "non" to « Savez-vous ce qu'est une copie TMA ? » is no Hopper-with-TMA level.
    known = state.facts()
    denied = [p for p in dialogue.rules.level_needs.get(level, []) if known.get(p) is False]
    return denied, level in state.excluded()

def claimed_against(dialogue: Dialogue, state: DialogueState) -> tuple[str, str] | None:
    """A claim of the goal answer that the settled level's label denies, as (level claimed,
    the reader's words): "2" (« jamais écrit de noyau »), then "accélérer les noyaux Triton
    que j'ai écrits". None when the level was chosen again when asked about it."""
    level, answer = state.get("level"), next((a for a in state.answers if a[0] == "goal"), None)
    text = answer[3] if answer and len(answer) > 3 and isinstance(answer[3], str) else ""
    level_answer = next((a for a in state.answers if a[0] == "level"), None)
    if not text or level is None or (level_answer and len(level_answer) > 2 and
                                     level_answer[2].get(f"level:{level}") is True):
        return None
    ruled = dialogue.rules.level_denies.get(level, [])
    ids = [o["id"] for o in dialogue.levels]
    claims = [(o, q) for o, q in dialogue.read("level", text).claims if o in ruled]
    # The lowest level claimed: the least the words say (« accélérer les noyaux que j'ai écrits »
    # claims writing kernels, not optimising them).
    return min(claims, key=lambda c: ids.index(c[0])) if claims else None

def guard(dialogue: Dialogue, state: DialogueState) -> str:
    """The invariant checked before every recommendation: never one on a level that a
    stated fact contradicts. Such a level is asked again, between itself and the highest
    level the words allow below it."""
    if state.get("level") is None or state.get("goal") is None:
        return ""
    for stage in ("level", "goal"):
        notice = _recheck(dialogue, state, stage)
        if notice:
            return notice
    notice = _goal_denied(dialogue, state) or _goal_elsewhere(dialogue, state) or _first_ever(dialogue, state) or \
        _goal_claims_denied_level(dialogue, state)
    if notice:
        return notice
    claim = claimed_against(dialogue, state)
    denied, excluded = conflicts(dialogue, state)
    if not denied and not excluded and not claim:
        return ""
    level = state.get("level")
    if excluded and not denied and not claim:
        notice = _goal_against_claim(dialogue, state, level)
        if notice:
            return notice
    idx = next(i for i, a in enumerate(state.answers) if a[0] == "level")
    old = state.answers.pop(idx)
    ids = [o["id"] for o in dialogue.levels]
    out = state.excluded()
    below = next((o for o in reversed(ids[:ids.index(level)]) if o not in out), ids[0])
    other = claim[0] if claim and not denied and not excluded else below
    state.clarify, state.pending = [other, level], dict(old[2]) if len(old) > 2 else {}
    state.reopened = list(state.clarify)
    label = next(o["label"] for o in dialogue.levels if o["id"] == level)
    if other != below:
        return LEVEL_VS_CLAIM.format(level=label, words=claim[1])
    if denied:
        names = {p["id"]: p["name"] for p in dialogue.data["paths"]["F"]["prerequisites"]}
        return LEVEL_VS_FACT.format(level=label, names=_join([names[p] for p in denied]))
    return LEVEL_VS_WORDS.format(level=label)


def _goal_against_claim(dialogue: Dialogue, state: DialogueState, level: str) -> str:
    """A level the reader claimed in their own words ("j'ai écrit plein de noyaux CUDA simples")
    that only the goal answer's stated fact rules out ("mon tout premier noyau, j'en ai jamais
    fait"): the goal answer is the odd one, so the goal is asked again, quoting the claim (on
    paths_dev2 and paths_dev5 the level was asked again, 2 dialogues). A level picked by its
    number has no words to weigh and is asked again as before."""
    level_answer = next(a for a in state.answers if a[0] == "level")
    goal_answer = next(a for a in state.answers if a[0] == "goal")
    text = level_answer[3] if len(level_answer) > 3 and isinstance(level_answer[3], str) else ""
    if not text or f"level:{level}" in level_answer[2] or not any(
            k == f"level:{level}" and v is False for k, v in (goal_answer[2] if len(goal_answer) > 2 else {}).items()):
        return ""
    words = dict(dialogue.read("level", text).claims).get(level)
    return _ask_goal_against(dialogue, state, goal_answer, words) if words else ""


def _ask_goal_against(dialogue: Dialogue, state: DialogueState, goal_answer: list, words: str) -> str:
    """Ask the goal again, between itself and the goal answer's runner-up, quoting the level
    answer's ``words`` that go against it."""
    goal = goal_answer[1]
    ranked = [o for o, _ in dialogue.read("goal", goal_answer[3]).match.ranked] if len(goal_answer) > 3 else []
    other = next((o for o in ranked if o != goal), next(g["id"] for g in dialogue.goals if g["id"] != goal))
    return GOAL_VS_WORDS.format(goal=_ask_goal_again(dialogue, state, goal, other), words=words)


def _goal_and_level_words(state: DialogueState) -> tuple[str, str]:
    """The chosen goal and the level answer's own words, for the checks between the two
    answers; no words ("") when the level answer was a pick or the goal was already chosen
    again after such a question (then it stands)."""
    level_answer = next(a for a in state.answers if a[0] == "level")
    answer = next(a for a in state.answers if a[0] == "goal")
    goal = answer[1]
    text = level_answer[3] if len(level_answer) > 3 and isinstance(level_answer[3], str) else ""
    if len(answer) > 2 and isinstance(answer[2], dict) and answer[2].get(f"goal:{goal}") is True:
        text = ""
    return goal, text


def _goal_answer_words(state: DialogueState) -> tuple[list, str]:
    """The settled goal answer and the reader's own words in it ("" for a pick)."""
    answer = next(a for a in state.answers if a[0] == "goal")
    return answer, answer[3] if len(answer) > 3 and isinstance(answer[3], str) else ""


def _ask_goal_again(dialogue: Dialogue, state: DialogueState, goal: str, other: str) -> str:
    """Drop the goal answer and offer the goal again, between itself and ``other``; returns
    the goal's label for the notice."""
    state.answers.pop(next(i for i, a in enumerate(state.answers) if a[0] == "goal"))
    state.clarify = [g["id"] for g in dialogue.goals if g["id"] in (goal, other)]
    state.reopened, state.pending = list(state.clarify), {}
    return next(g["label"] for g in dialogue.goals if g["id"] == goal)


def _goal_denied(dialogue: Dialogue, state: DialogueState) -> str:
    """A goal that the level answer's words deny ("PyTorch, l'inférence ne m'intéresse pas",
    then "E"): the goal is asked again, between itself and what the words speak for; chosen
    again, it stands."""
    goal, text = _goal_and_level_words(state)
    if not text:
        return ""
    reading = dialogue.read("goal", text)
    words = dict(reading.denials).get(goal, "")
    # Only a denial of interest or of a wish speaks of the goal ("l'inférence ne m'intéresse
    # pas"); one of experience ("jamais écrit de kernel Triton") speaks of the level: on the
    # dev dialogues, reading those as goal denials asked 3 clear PyTorch readers again.
    if goal not in reading.excludes or not words:
        return ""
    # "jamais touché à PyTorch et je compte pas m'y mettre": experience denied, then the intent
    # to start denied too, which does speak of the goal (paths_dev19: 1 confident path C).
    after = clean(text[text.find(words) + len(words):], dialogue.rules)[:_INTENT_REACH] if words in text else ""
    intent = bool(_NO_INTENT.search(after))
    if not intent and not dialogue.rules.interest.search(clean(words, dialogue.rules)):
        return ""
    other = next((o for o, _ in reading.match.ranked if o != goal and o not in reading.excludes),
                 next(g["id"] for g in dialogue.goals if g["id"] != goal))
    return GOAL_VS_WORDS.format(goal=_ask_goal_again(dialogue, state, goal, other), words=words)


# « je compte pas m'y mettre », « pas l'intention de m'y mettre », "and I don't plan to"
_NO_INTENT = re.compile(r"\b(?:(?:compte|veux|vais|va|voudrais) (?:pas|jamais)|pas l'intention|aucune intention|"
                        r"(?:don'?t|do not|won'?t|will not|never) (?:plan|intend|want|going)|no (?:plan|intention))\b")
_INTENT_REACH = 60      # characters after the denial that its intent may follow in


def _goal_elsewhere(dialogue: Dialogue, state: DialogueState) -> str:
    """A goal that the level answer's own wish speaks against ("dev JS, je veux juste comprendre
    sans écrire de code", then "écrire mon premier noyau"; "the only thing I care about is LLM
    inference", then "scientific computing"): the goal is asked again, between itself and the
    wished one; chosen again, it stands. Only a clause that says a wish or an interest counts,
    read alone and settling on a goal that gives the chosen one nothing (on paths_dev4, these
    were 2 of the 6 confident recommendations that contradicted the reader)."""
    goal, text = _goal_and_level_words(state)
    if not text:
        return ""
    rules = dialogue.rules
    for piece in SPLIT.split(clean(text, rules))[::2]:
        piece = piece.strip()
        if not piece or not (rules.wish.search(piece) or rules.interest.search(piece)):
            continue
        match = dialogue.read("goal", piece).match
        if not match.sure or match.option == goal or dict(match.ranked).get(goal, 0.0) > 0:
            continue
        return GOAL_VS_WISH.format(goal=_ask_goal_again(dialogue, state, goal, match.option),
                                   words=source_span(piece, text, SPLIT))
    return ""


# « écrire mon tout premier noyau » says the reader never wrote one
_FIRST_EVER = re.compile(r"\b(?:tout premier|toute premiere|tout 1er|very first|first ever|first-ever)\b")


def _first_ever(dialogue: Dialogue, state: DialogueState) -> str:
    """A very first kernel wished by a reader whose own words claim kernels ("j'écris des noyaux
    Hopper avec TMA depuis un an", then "écrire mon tout premier noyau"): the goal answer is the
    odd one, so the goal is asked again, quoting the claim (paths_dev13: 1 of 45 dialogues that
    should have been asked was recommended on)."""
    level = state.get("level")
    _, text = _goal_and_level_words(state)
    goal_answer, said = _goal_answer_words(state)
    # the ladder's third rung on (simple kernels, optimising, Hopper) all write kernels
    if not text or level not in dialogue.rules.ladder[2:] or not said or \
            not _FIRST_EVER.search(clean(said, dialogue.rules)):
        return ""
    words = dict(dialogue.read("level", text).claims).get(level)
    return _ask_goal_against(dialogue, state, goal_answer, words) if words else ""


def _goal_claims_denied_level(dialogue: Dialogue, state: DialogueState) -> str:
    """A goal answer that claims, in the first person, a level the level answer's own words
    ruled out ("je connais pas du tout pytorch", then "rendre mon code pytorch plus rapide, je
    l'utilise tous les jours"): the goal is asked again, quoting the denial (paths_dev20: 1
    confident path C)."""
    _, text = _goal_and_level_words(state)
    goal_answer, said = _goal_answer_words(state)
    if not text or not said:
        return ""
    level_reading = dialogue.read("level", text)
    denied = dict(level_reading.denials)
    claimed = [o for o, _ in dialogue.read("level", said).claims if o in level_reading.excludes]
    words = next((denied[o] for o in claimed if o in denied), "")
    return _ask_goal_against(dialogue, state, goal_answer, words) if words else ""


def _recheck(dialogue: Dialogue, state: DialogueState, stage: str) -> str:
    """Read a settled free answer again, as the check before a recommendation: one whose
    words say two things that do not go together (a state written elsewhere, or kept from
    older rules) is asked about again instead of recommended on."""
    idx = next(i for i, a in enumerate(state.answers) if a[0] == stage)
    answer = state.answers[idx]
    text = answer[3] if len(answer) > 3 and isinstance(answer[3], str) else ""
    if not text:
        return ""
    reading = dialogue.read(stage, text)
    if not reading.clash and not (reading.contradiction and len(reading.contradiction) == 2):
        return ""
    state.answers.pop(idx)
    if reading.contradiction and len(reading.contradiction) == 2:
        state.clarify, state.pending = list(reading.contradiction), dict(answer[2])
    else:
        state.clash = [*reading.clash, text]
    a, b = reading.clash or [next(o["label"] for o in dialogue.levels + dialogue.goals if o["id"] == x)
                             for x in reading.contradiction]
    return CLASH.format(a=_lower_first(a), b=_lower_first(b))


def resolve_clash(clash: list[str], text: str) -> tuple[str, str]:
    """The answer to read after a question about two facts, and the fact kept: the whole first
    answer without the fact not kept when the reader picks one (its words, "1", "la 2"), else
    the new text and no fact."""
    first, second, whole = (clash + ["", "", ""])[:3]
    norm = normalise(text).strip(" .!»«\"'")
    pick = re.fullmatch(r"(?:(?:la|le|phrase|option|choix|number|#)\s*)?([12])|"
                        r"(?:la )?(premiere|seconde|deuxieme|first|second)", norm)
    if pick:
        keep = first if (pick.group(1) == "1" or pick.group(2) in ("premiere", "first")) else second
    elif norm in (normalise(first).strip(" .!»«\"'"), normalise(second).strip(" .!»«\"'")):
        keep = first if norm == normalise(first).strip(" .!»«\"'") else second
    else:
        return text, ""
    drop = second if keep == first else first
    rest = whole.replace(drop, " ", 1) if drop and drop in whole else keep
    return " ".join(rest.split()).strip(" ,;") or keep, keep


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " et " + names[-1]


def _lower_first(label: str) -> str:
    return label[:1].lower() + label[1:]
