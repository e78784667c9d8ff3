"""Fit the refusal model of ``assistant.search.relevance`` on dev questions, with k-fold cross-validation.

``fit_refusal(inside, outside)`` takes the feature dicts of in-scope and out-of-scope dev
questions and returns the model fields for ``assistant/data/refusal.yaml`` plus the
figures: an L2-regularised logistic regression (numpy, Newton steps) on standardised
features, and two cut points on its probability, both chosen inside each training fold
so that the cross-validated figures measure the whole recipe:

- ``refuse_below`` (French) and ``refuse_below_en`` (English) are the highest cuts that
  keep the training fold's in-scope refusals of that language within ``BUDGET`` (1 %
  each): the operating point is set by the in-scope refusals a learner meets,
  not by balancing precision and recall (an in-scope question refused costs more than a
  near-topic one answered from the nearest sections);
- ``partial_below``: the probability above which at most ``PARTIAL_SHARE`` of in-scope
  questions lie below, bounded by ``refuse_below``: the few in-scope questions the model
  doubts get a partial answer rather than a refusal.

Besides the k-fold figures, ``groups`` gives leave-one-set-out figures: the whole recipe
fitted without one question set (one writer, one round) and scored on it. Random folds
mix every writer's style into training; a new test split does not, and on it the
in-scope refusals came out at twice the k-fold figure (4.3 % against 2.2 %). The by-set
figure reproduced that gap (4.3 % on the set held out), so it is the one to keep a margin on.
"""
from __future__ import annotations

import random

import numpy as np

from assistant.search.relevance import FEATURES

# On standardised features. Dev, 603 in-scope / 141 out-of-scope questions, 5-fold CV
# (features of assistant.search.relevance.FEATURES): L2 1.0 gives refusal precision 0.929, recall
# 0.929, in-scope refused 1.7 %; 0.3 gives 0.923 / 0.936. Dropping the `english` feature
# costs about 0.02 of precision; dense + known alone (the older rule) reaches 0.85 / 0.85.
# Again on 903 / 250 with 10 features and the 1.5 % budget: L2 0.3 / 1.0 / 3.0 give recall
# 0.940 / 0.936 / 0.924 at in-scope refused 1.4 / 1.2 / 1.2 %.
L2 = 1.0
FOLDS = 5
PARTIAL_SHARE = 0.05
# Highest in-scope refusal share allowed on the training fold, per language. The balanced
# cut (max of min(precision, recall)) refused 1.7 % of in-scope dev questions in CV; see
# assistant/data/refusal.yaml for the figures of this rule.
# 5-fold CV on dev (603/141): budgets fr 1 % / en 2 % gave in-scope refused 0.66 %, out
# of scope 0.872, near-topic 0.761; fr 0.5 % / en 1 %: 0.33 % / 0.887 / 0.776; 2 % for both:
# 2.5 % / 0.950 / 0.910, the only point that meets every goal (≤ 3 %, ≥ 0.90, ≥ 0.85) at once;
# the balanced cut gave 1.7 % / 0.929 / 0.866.
# With the named-word and per-language features (10 features, 903 in-scope / 250 out-of-scope
# dev questions): budget 2 % gave k-fold in-scope refused 2.0 %, out of scope 0.956, near
# 0.930, by-set 1.7 % (the set held out worst: 3.9 %); 1.5 %: 1.2 % / 0.936 / 0.904, by-set
# 1.25 % (worst set 2.7 %, English 3.5 %); 1 %: 1.0 % / 0.920 / 0.878. 1.5 % keeps every goal
# on the worst held-out set with the margin the k-fold/test gap asks for.
# Refitted with the third round in dev (1173 / 378): 1.5 % gives k-fold in-scope refused 1.7 %,
# out of scope 0.939, near 0.894; by-set 1.3 % (worst set, dev3: 2.6 %, English 2.4 %, precision
# 0.945): still within every goal on the worst held-out round, so the budget stays.
# Refitted with the fourth and fifth rounds in dev (1713 / 630): k-fold in-scope refused 1.3 %,
# out of scope 0.938, near 0.884, precision 0.963; by-set 1.5 % (worst set, dev4: 2.6 %, English
# 3.7 %, precision 0.945): within every goal again, the budget stays.
# Refitted with rounds 16 and 17 in dev (5223 / 2272): at 1.5 % the round-17 set held out refused
# 3.3 % of its in-scope questions (its test run: 3.7 %), over the 3 % goal; 1.25 % / 1 % give k-fold
# in-scope refused 1.2 % / 1.0 %, out of scope 0.956 / 0.947, near 0.917 / 0.900, precision 0.971 /
# 0.976, by-set 1.2 % / 1.0 % (round 17 held out: 3.0 % / 3.0 %, round 16: 1.9 % / 1.1 %): 1 %
# keeps the near-topic goal (0.85) with margin and buys it for the in-scope one.
BUDGET = {"fr": 0.01, "en": 0.01}
USED = FEATURES


def _matrix(rows: list[dict], names: tuple[str, ...]) -> np.ndarray:
    return np.array([[float(r.get(f, 0.0)) for f in names] for r in rows], dtype=float)


def _logistic(x: np.ndarray, y: np.ndarray, l2: float = L2) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    # in-scope and out-of-scope weighted equally, whatever their counts
    weight = np.where(y == 1, 0.5 / max(y.sum(), 1), 0.5 / max((1 - y).sum(), 1)) * len(y)
    w = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(z @ w, -60, 60)))
        grad = z.T @ (weight * (p - y)) + reg * w
        hess = (z * (weight * p * (1 - p))[:, None]).T @ z + np.diag(reg)
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(w)), grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1]), mean, scale


def _prob(x: np.ndarray, coef, bias, mean, scale) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(((x - mean) / scale) @ coef + bias, -60, 60)))


def _cut(p_in: np.ndarray, p_out: np.ndarray) -> float:
    values = np.unique(np.concatenate([p_in, p_out]))
    cuts = np.concatenate([[0.0], (values[1:] + values[:-1]) / 2, [1.0]]) if len(values) > 1 else values
    best, best_key = 0.5, None
    for t in cuts:
        tp, fp = int((p_out < t).sum()), int((p_in < t).sum())
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / len(p_out) if len(p_out) else 0.0
        key = (round(min(prec, rec), 6), -fp, rec)
        if best_key is None or key > best_key:
            best, best_key = float(t), key
    return best


def _budget_cut(p_in: np.ndarray, budget: float) -> float:
    """The highest cut under which at most ``budget`` of ``p_in`` lie (midway between values)."""
    v = np.sort(p_in)
    k = int(np.floor(budget * len(v)))       # questions that may be refused
    if k >= len(v):
        return 1.0
    return float((v[k - 1] + v[k]) / 2) if k else float(v[0] / 2)


def _cuts(p_in, p_out, en_in) -> tuple[float, float]:
    """(French cut, English cut), each within its language's in-scope budget."""
    fr = _budget_cut(p_in[~en_in], BUDGET["fr"]) if (~en_in).any() else _cut(p_in, p_out)
    # never above the French cut: dev English questions are few and easy (2 % of 129 let
    # the cut climb to 0.44 and refused 3.1 % in CV)
    en = min(fr, _budget_cut(p_in[en_in], BUDGET["en"])) if en_in.any() else fr
    return fr, en


def _partial(p_in: np.ndarray, refuse_below: float) -> float:
    above = np.sort(p_in[p_in >= refuse_below])
    if not len(above):
        return refuse_below
    return float(max(refuse_below, np.quantile(above, PARTIAL_SHARE)))


def _scores(p_in, p_out, t, t_partial, en_in=None, en_out=None) -> dict:
    """Counts with the cut ``t`` (a (French, English) pair applies per question's language)."""
    t_in, t_out = _per_question(t, p_in, en_in), _per_question(t, p_out, en_out)
    tp_in, tp_out = np.maximum(t_partial, t_in), np.maximum(t_partial, t_out)
    en_in = np.zeros(len(p_in), bool) if en_in is None else en_in
    return {"refused_out": int((p_out < t_out).sum()), "refused_in": int((p_in < t_in).sum()),
            "refused_in_en": int(((p_in < t_in) & en_in).sum()), "n_in_en": int(en_in.sum()),
            "n_in": len(p_in), "n_out": len(p_out),
            "partial_in": int(((p_in >= t_in) & (p_in < tp_in)).sum()),
            "partial_out": int(((p_out >= t_out) & (p_out < tp_out)).sum())}


def _per_question(t, p, en) -> np.ndarray:
    if isinstance(t, tuple):
        return np.where(en, t[1], t[0]) if en is not None else np.full(len(p), t[0])
    return np.full(len(p), t)


def _figures(s: dict) -> dict:
    prec = s["refused_out"] / (s["refused_out"] + s["refused_in"]) if s["refused_out"] + s["refused_in"] else 0.0
    return {"precision": round(prec, 4), "recall": round(s["refused_out"] / max(s["n_out"], 1), 4),
            "inscope_refused": round(s["refused_in"] / max(s["n_in"], 1), 4),
            "english_refused": round(s.get("refused_in_en", 0) / max(s.get("n_in_en", 0), 1), 4),
            "inscope_partial": round(s["partial_in"] / max(s["n_in"], 1), 4),
            "outside_partial": round(s["partial_out"] / max(s["n_out"], 1), 4)}


def _fit_and_score(x_in, x_out, en_in, en_out, train_in, train_out, test_in, test_out, l2):
    """Fit the recipe (model and cuts) on the train indices, count on the test indices."""
    xt = np.vstack([x_in[train_in], x_out[train_out]])
    yt = np.concatenate([np.ones(len(train_in)), np.zeros(len(train_out))])
    c, b, m, sc = _logistic(xt, yt, l2)
    tin, tout = _prob(x_in[train_in], c, b, m, sc), _prob(x_out[train_out], c, b, m, sc)
    tk = _cuts(tin, tout, en_in[train_in])
    tpk = _partial(tin, min(tk))
    pin_k, pout_k = _prob(x_in[test_in], c, b, m, sc), _prob(x_out[test_out], c, b, m, sc)
    s = _scores(pin_k, pout_k, tk, tpk, en_in[test_in], en_out[test_out])
    return s, pout_k < _per_question(tk, pout_k, en_out[test_out])


def _by_set(x_in, x_out, en_in, en_out, groups_in, groups_out, l2) -> dict:
    """Leave-one-set-out figures, overall and per set held out (a None set is always trained on)."""
    names = sorted({g for g in list(groups_in) + list(groups_out) if g is not None})
    total: dict = {}
    per_set = {}
    for g in names:
        test_in = [i for i, h in enumerate(groups_in) if h == g]
        test_out = [i for i, h in enumerate(groups_out) if h == g]
        if not test_in or not test_out:
            continue
        train_in = [i for i, h in enumerate(groups_in) if h != g]
        train_out = [i for i, h in enumerate(groups_out) if h != g]
        s, _ = _fit_and_score(x_in, x_out, en_in, en_out, train_in, train_out, test_in, test_out, l2)
        per_set[g] = _figures(s)
        for key, v in s.items():
            total[key] = total.get(key, 0) + v
    return {**_figures(total), "sets": per_set} if total else {}


def fit_refusal(inside: list[dict], outside: list[dict], names: tuple[str, ...] = USED,
                seed: int = 0, l2: float = L2, kinds: list[str] | None = None,
                groups: tuple[list, list] | None = None) -> dict:
    """Model fields and figures (fit on everything given; CV over ``FOLDS`` stratified folds).

    ``kinds``: the kind of each out-of-scope question ("off", "near", "trap"), for the
    per-kind cross-validated refusal shares. ``groups``: (set of each in-scope question,
    set of each out-of-scope one), for the leave-one-set-out figures (``by_set``)."""
    x_in, x_out = _matrix(inside, names), _matrix(outside, names)
    en_in = np.array([float(r.get("english", 0.0)) > 0.5 for r in inside], bool)
    en_out = np.array([float(r.get("english", 0.0)) > 0.5 for r in outside], bool)
    x = np.vstack([x_in, x_out])
    y = np.concatenate([np.ones(len(x_in)), np.zeros(len(x_out))])
    coef, bias, mean, scale = _logistic(x, y, l2)
    p_in, p_out = _prob(x_in, coef, bias, mean, scale), _prob(x_out, coef, bias, mean, scale)
    t = _cuts(p_in, p_out, en_in)
    t_partial = _partial(p_in, min(t))
    fitted = _figures(_scores(p_in, p_out, t, t_partial, en_in, en_out))

    rng = random.Random(seed)
    idx_in, idx_out = list(range(len(x_in))), list(range(len(x_out)))
    rng.shuffle(idx_in)
    rng.shuffle(idx_out)
    total: dict = {}
    refused_out = np.zeros(len(x_out), bool)
    for k in range(FOLDS):
        test_in, test_out = idx_in[k::FOLDS], idx_out[k::FOLDS]
        train_in = [i for i in idx_in if i not in set(test_in)]
        train_out = [i for i in idx_out if i not in set(test_out)]
        s, refused = _fit_and_score(x_in, x_out, en_in, en_out, train_in, train_out, test_in, test_out, l2)
        refused_out[test_out] = refused
        for key, v in s.items():
            total[key] = total.get(key, 0) + v
    cv = _figures(total)
    if kinds:
        for kind in sorted(set(kinds)):
            sel = np.array([k == kind for k in kinds])
            cv[f"{kind}_refused"] = round(float(refused_out[sel].mean()), 4)
    by_set = _by_set(x_in, x_out, en_in, en_out, groups[0], groups[1], l2) if groups else {}
    return {
        "weights": {f: round(float(w), 4) for f, w in zip(names, coef)},
        "bias": round(bias, 4),
        "mean": {f: round(float(v), 4) for f, v in zip(names, mean)},
        "scale": {f: round(float(v), 4) for f, v in zip(names, scale)},
        "refuse_below": round(t[0], 4),
        "refuse_below_en": round(t[1], 4),
        "partial_below": round(t_partial, 4),
        "fitted": fitted,
        "cv": cv,
        "by_set": by_set,
        "folds": FOLDS,
        "l2": l2,
        "budget": dict(BUDGET),
    }
