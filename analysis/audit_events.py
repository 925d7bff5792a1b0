"""The candidate events of the statistical privacy audit (:mod:`analysis.privacy_audit`).

An event is a fixed predicate on outcome rows (``(runs, k)`` integer arrays), chosen on the
selection batch and then evaluated, unchanged, on fresh runs. Three families
(docs/privacy_audits.md, "Event families"):

* **likelihood** (:class:`KeySet`): the prefixes of the observed outcomes sorted by their
  smoothed likelihood ratio (Neyman-Pearson over the outcomes seen; an outcome never seen in
  the selection is outside every such event);
* **ordered** (:class:`Ordered`): for a feature with an order, ``{f <= t}`` and ``{f >= t}``,
  the features being every coordinate of the outcome (a threshold index, a grid cell, a bin of
  a noisy value, a prediction) and, for vector outcomes, their sum (a count). One-parameter
  families: few candidates, each with many runs, and an outcome unseen in the selection still
  falls on its side of the threshold;
* **classifier** (:class:`Classifier`, vector outcomes): DP-Sniper's learned event (Bichsel et
  al., IEEE S&P 2021): a logistic regression of "first side" against "second side" fitted on
  the selection batch (one-hot coordinates, ridge-penalised, Newton's method in numpy), and
  the events ``{score >= t}`` / ``{score <= t}``.

:func:`candidates` lists, for one ordered pair of selection batches, every event of the
requested families with its numerator and denominator counts on the selection batch; the
audit scores them (``predicted_bound``) and keeps the best.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FAMILIES = ("likelihood", "ordered", "classifier")
MAX_ONE_HOT = 32  # a coordinate with more distinct values enters the classifier as a number
RIDGE = 1e-3      # the classifier's ridge penalty, per selection run


def row_keys(rows: np.ndarray) -> np.ndarray:
    """One hashable key (bytes) per outcome row."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return np.array([r.tobytes() for r in rows], dtype=object)


@dataclass(frozen=True)
class KeySet:
    """The outcomes in ``keys`` (bytes of outcome rows)."""

    keys: frozenset
    family: str = "likelihood"

    def contains(self, rows: np.ndarray) -> np.ndarray:
        return np.array([k in self.keys for k in row_keys(rows)], dtype=bool)

    def describe(self) -> str:
        return f"likelihood-ratio prefix of {len(self.keys)} outcomes"


@dataclass(frozen=True)
class Ordered:
    """``{f(row) <= t}`` (``upper``) or ``{f(row) >= t}``; ``f`` = coordinate ``coord`` of the
    row, or the sum of its coordinates (``coord = -1``)."""

    coord: int
    threshold: int
    upper: bool
    family: str = "ordered"

    def feature(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        return rows.sum(axis=1) if self.coord < 0 else rows[:, self.coord]

    def contains(self, rows: np.ndarray) -> np.ndarray:
        f = self.feature(rows)
        return f <= self.threshold if self.upper else f >= self.threshold

    def describe(self) -> str:
        what = "sum of the outputs" if self.coord < 0 else f"output {self.coord}"
        return f"{what} {'<=' if self.upper else '>='} {self.threshold}"


@dataclass(frozen=True)
class Classifier:
    """``{score(row) >= t}`` (``upper = False``) or ``{score(row) <= t}``, ``score`` a fitted
    logistic regression's linear predictor on :func:`design` features."""

    levels: tuple          # per coordinate: its one-hot levels, or () (entered as a number)
    weights: tuple
    threshold: float
    upper: bool
    family: str = field(default="classifier")

    def score(self, rows: np.ndarray) -> np.ndarray:
        return design(rows, self.levels) @ np.asarray(self.weights)

    def contains(self, rows: np.ndarray) -> np.ndarray:
        s = self.score(rows)
        return s <= self.threshold if self.upper else s >= self.threshold

    def describe(self) -> str:
        return f"classifier score {'<=' if self.upper else '>='} {self.threshold:.4g}"


def design(rows: np.ndarray, levels: tuple) -> np.ndarray:
    """The classifier's features: an intercept, then per coordinate its one-hot indicators
    (``levels[j]`` non-empty) or its value scaled to ``[0, 1]`` over the selection range."""
    rows = np.asarray(rows, dtype=np.int64)
    cols = [np.ones(len(rows))]
    for j, lev in enumerate(levels):
        if lev and lev[0] == "num":
            lo, hi = lev[1], lev[2]
            cols.append((rows[:, j] - lo) / max(hi - lo, 1))
        else:
            cols.extend((rows[:, j] == v).astype(float) for v in lev)
    return np.column_stack(cols)


def fit_logistic(X: np.ndarray, n1: np.ndarray, n2: np.ndarray, ridge: float,
                 iters: int = 50) -> np.ndarray:
    """Ridge-penalised logistic regression of side 1 against side 2 on distinct feature rows
    ``X`` seen ``n1`` and ``n2`` times (Newton's method; the intercept is not penalised)."""
    w = np.zeros(X.shape[1])
    pen = np.full(X.shape[1], ridge)
    pen[0] = 0.0
    tot = n1 + n2
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(X @ w, -30, 30)))
        grad = X.T @ (n1 - tot * p) - pen * w
        hess = (X * (tot * p * (1 - p))[:, None]).T @ X + np.diag(pen + 1e-9)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def _threshold_events(values, c1, c2, make):
    """Both one-sided threshold families of a feature with distinct sorted ``values`` and
    counts ``c1``, ``c2``: ``[(event, k1, k2)]`` with ``make(threshold, upper)``."""
    out = []
    lo1, lo2 = np.cumsum(c1), np.cumsum(c2)
    hi1, hi2 = np.cumsum(c1[::-1])[::-1], np.cumsum(c2[::-1])[::-1]
    for i, v in enumerate(values):
        if i < len(values) - 1:  # {f <= v}; the whole space is no event worth scoring
            out.append((make(v, True), int(lo1[i]), int(lo2[i])))
        if i > 0:
            out.append((make(v, False), int(hi1[i]), int(hi2[i])))
    return out


def _counts_by(feature: np.ndarray, first: np.ndarray, second: np.ndarray):
    values, inv = np.unique(feature, return_inverse=True)
    return (values, np.bincount(inv, weights=first, minlength=len(values)),
            np.bincount(inv, weights=second, minlength=len(values)))


def candidates(rows: np.ndarray, first: np.ndarray, second: np.ndarray,
               fit_first: np.ndarray, fit_second: np.ndarray, families=FAMILIES) -> list:
    """Every event of ``families`` over the distinct outcome ``rows``: ``[(event, k1, k2)]``.

    The selection batch is split in two halves: the events are *built* on the first (the
    likelihood ordering, the classifier's fit: counts ``fit_first``, ``fit_second`` per row)
    and *counted* on the second (``first``, ``second``: ``k1``, ``k2`` are the event's runs of
    the numerator and denominator side there), so that a family fitted to the noise of one half
    gains nothing on the other and every family competes on held-out counts."""
    rows = np.asarray(rows, dtype=np.int64)
    first, second = np.asarray(first, float), np.asarray(second, float)
    fit_first, fit_second = np.asarray(fit_first, float), np.asarray(fit_second, float)
    out = []
    k = rows.shape[1]
    if "likelihood" in families:
        keys = row_keys(rows)
        ratio = (fit_first + 0.5) / (fit_second + 0.5)
        order = sorted(range(len(rows)), key=lambda u: (-ratio[u], keys[u]))
        k1 = np.cumsum(first[order])
        k2 = np.cumsum(second[order])
        for m in range(1, len(order)):  # every prefix but the whole space
            out.append((KeySet(frozenset(keys[order[:m]])), int(k1[m - 1]), int(k2[m - 1])))
    if "ordered" in families:
        feats = list(range(k)) + ([-1] if k > 1 else [])
        for j in feats:
            f = rows.sum(axis=1) if j < 0 else rows[:, j]
            values, c1, c2 = _counts_by(f, first, second)
            out += _threshold_events(values, c1, c2,
                                     lambda t, up, j=j: Ordered(j, int(t), up))
    if "classifier" in families and k > 1 and len(rows) > 2:
        levels = []
        for j in range(k):
            vals = np.unique(rows[:, j])
            levels.append(tuple(int(v) for v in vals[1:]) if len(vals) <= MAX_ONE_HOT
                          else ("num", int(vals[0]), int(vals[-1])))
        levels = tuple(levels)
        X = design(rows, levels)
        w = fit_logistic(X, fit_first, fit_second, RIDGE * (fit_first.sum() + fit_second.sum()))
        values, c1, c2 = _counts_by(np.round(X @ w, 12), first, second)
        wt = tuple(float(v) for v in w)
        # the thresholds halfway between distinct scores: robust to rounding on fresh runs
        mids = (values[:-1] + values[1:]) / 2
        for i in range(len(values) - 1):
            out.append((Classifier(levels, wt, float(mids[i]), True),
                        int(c1[:i + 1].sum()), int(c2[:i + 1].sum())))
            out.append((Classifier(levels, wt, float(mids[i]), False),
                        int(c1[i + 1:].sum()), int(c2[i + 1:].sum())))
    return out
