"""Fit the refusal model of ``assistant.relevance`` on dev questions, with k-fold cross-validation.

``fit_refusal(inside, outside)`` takes the feature dicts of in-scope and out-of-scope dev
questions and returns the model fields for ``assistant/data/refusal.yaml`` plus the
figures: an L2-regularised logistic regression (numpy, Newton steps) on standardised
features, and two cut points on its probability, both chosen inside each training fold
so that the cross-validated figures measure the whole recipe:

- ``refuse_below`` maximises the smaller of refusal precision and recall, ties broken
  towards fewer in-scope refusals (an in-scope question refused costs more to a learner
  than a near-topic one answered with the nearest sections);
- ``partial_below``: the probability above which at most ``PARTIAL_SHARE`` of in-scope
  questions lie below, bounded by ``refuse_below``: the few in-scope questions the model
  doubts get a partial answer rather than a refusal.
"""
from __future__ import annotations

import random

import numpy as np

from assistant.relevance import FEATURES

# On standardised features. Dev, 603 in-scope / 141 out-of-scope questions, 5-fold CV
# (features of assistant.relevance.FEATURES): L2 1.0 gives refusal precision 0.929, recall
# 0.929, in-scope refused 1.7 %; 0.3 gives 0.923 / 0.936. Dropping the `english` feature
# costs about 0.02 of precision; dense + known alone (the older rule) reaches 0.85 / 0.85.
L2 = 1.0
FOLDS = 5
PARTIAL_SHARE = 0.05
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


def _partial(p_in: np.ndarray, refuse_below: float) -> float:
    above = np.sort(p_in[p_in >= refuse_below])
    if not len(above):
        return refuse_below
    return float(max(refuse_below, np.quantile(above, PARTIAL_SHARE)))


def _scores(p_in, p_out, t, t_partial) -> dict:
    tp, fp = int((p_out < t).sum()), int((p_in < t).sum())
    return {"refused_out": tp, "refused_in": fp, "n_in": len(p_in), "n_out": len(p_out),
            "partial_in": int(((p_in >= t) & (p_in < t_partial)).sum()),
            "partial_out": int(((p_out >= t) & (p_out < t_partial)).sum())}


def _figures(s: dict) -> dict:
    prec = s["refused_out"] / (s["refused_out"] + s["refused_in"]) if s["refused_out"] + s["refused_in"] else 0.0
    return {"precision": round(prec, 4), "recall": round(s["refused_out"] / max(s["n_out"], 1), 4),
            "inscope_refused": round(s["refused_in"] / max(s["n_in"], 1), 4),
            "inscope_partial": round(s["partial_in"] / max(s["n_in"], 1), 4),
            "outside_partial": round(s["partial_out"] / max(s["n_out"], 1), 4)}


def fit_refusal(inside: list[dict], outside: list[dict], names: tuple[str, ...] = USED,
                seed: int = 0, l2: float = L2) -> dict:
    """Model fields and figures (fit on everything given; CV over ``FOLDS`` stratified folds)."""
    x_in, x_out = _matrix(inside, names), _matrix(outside, names)
    x = np.vstack([x_in, x_out])
    y = np.concatenate([np.ones(len(x_in)), np.zeros(len(x_out))])
    coef, bias, mean, scale = _logistic(x, y, l2)
    p_in, p_out = _prob(x_in, coef, bias, mean, scale), _prob(x_out, coef, bias, mean, scale)
    t = _cut(p_in, p_out)
    t_partial = _partial(p_in, t)
    fitted = _figures(_scores(p_in, p_out, t, t_partial))

    rng = random.Random(seed)
    idx_in, idx_out = list(range(len(x_in))), list(range(len(x_out)))
    rng.shuffle(idx_in)
    rng.shuffle(idx_out)
    total = {"refused_out": 0, "refused_in": 0, "n_in": 0, "n_out": 0, "partial_in": 0, "partial_out": 0}
    for k in range(FOLDS):
        test_in, test_out = idx_in[k::FOLDS], idx_out[k::FOLDS]
        train_in = [i for i in idx_in if i not in set(test_in)]
        train_out = [i for i in idx_out if i not in set(test_out)]
        xt = np.vstack([x_in[train_in], x_out[train_out]])
        yt = np.concatenate([np.ones(len(train_in)), np.zeros(len(train_out))])
        c, b, m, sc = _logistic(xt, yt, l2)
        tin, tout = _prob(x_in[train_in], c, b, m, sc), _prob(x_out[train_out], c, b, m, sc)
        tk = _cut(tin, tout)
        tpk = _partial(tin, tk)
        s = _scores(_prob(x_in[test_in], c, b, m, sc), _prob(x_out[test_out], c, b, m, sc), tk, tpk)
        for key in total:
            total[key] += s[key]
    cv = _figures(total)
    return {
        "weights": {f: round(float(w), 4) for f, w in zip(names, coef)},
        "bias": round(bias, 4),
        "mean": {f: round(float(v), 4) for f, v in zip(names, mean)},
        "scale": {f: round(float(v), 4) for f, v in zip(names, scale)},
        "refuse_below": round(t, 4),
        "partial_below": round(t_partial, 4),
        "fitted": fitted,
        "cv": cv,
        "folds": FOLDS,
        "l2": l2,
    }
