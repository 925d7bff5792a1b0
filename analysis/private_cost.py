"""C4's counted test: does the private cost grow with the exact ``ln|G|`` or with d?

BMN20 (Lemma 4.6, Theorem 4.9) prices the private part of the sample at about
``(ln|G| + ln 1/beta) / (epsilon alpha)``, where ``ln|G| = O(d^2 ln n_pub)`` is the log-size of
the class the public points build; a learner that paid only the non-private (VC) price would
grow like d. At d = 1, 2, 3 the two are told apart by the *increments ratio* of the private cost
``P(d)``::

    R = (P(3) - P(2)) / (P(2) - P(1))

which is free of the cost's scale and of any constant added to it. Per setting ``s`` (one
``(w_pub, epsilon, alpha)``):

* ``P_s(d) = n_hat_PPM(d) - n_hat_ERM(d)``: PPM's empirical sample complexity minus that of the
  non-private ERM on the same samples (the non-private part, measured, not modelled);
* ``L_s(d)``: the exact ``ln|G|`` the mechanism scored at the setting's own ``n_pub``, i.e. the
  median of the trials' ``log_n_hypotheses`` at ``n = n_hat_PPM(d)`` (interpolated in ``log n``
  between the grid's two neighbours; at the grid's largest n for a right-censored cell);
* the two predictions for ``R_s``: ``rho_s = (L_s(3) - L_s(2)) / (L_s(2) - L_s(1))`` if
  ``P_s = c_s L_s + k_s`` (BMN20), and exactly 1 if ``P_s = c_s d + k_s`` (the alternative).

Pooled over the settings, ``R = sum_s (P_s(3) - P_s(2)) / sum_s (P_s(2) - P_s(1))``. Whatever the
unknown scales ``c_s > 0``, the ``ln|G|`` model puts ``R`` in ``[min_s rho_s, max_s rho_s]`` and the
d model at exactly 1: those are the two predictions the interval is weighed against. The
interval is the joint bootstrap of :mod:`analysis.pooled_slope` (trial indices drawn once per
sample group, n and trial set, and shared by PPM and ERM, which ran on the same samples; each
replicate reads ``n_hat`` at a uniform position of its grid bracket, so the interval is never
narrower than the grid's resolution). A setting whose PPM ``n_hat`` at d = 3 is right-censored
enters at the grid's largest n, a lower bound, and makes ``R`` a lower bound (``direction``); a
setting censored at d = 1 or 2, or left-censored, is excluded with the reason.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.pooled_slope import split_datasets, shared_resample
from analysis.sample_complexity import check_df, read_point
from analysis.slopes import bootstrap
from experiments.columns import D, EPSILON, ERM, PPM, W_PUB
from ppm.validation import check_open_unit, check_positive_int, check_random_state

__all__ = ["private_cost_ratio_pooled", "log_g_at"]

DS = (1.0, 2.0, 3.0)
_NO_EPS = -1.0  # ERM rows carry no epsilon: one key for all of them


def log_g_at(ppm_rows: pd.DataFrame, n: float, log_g_col: str = "log_n_hypotheses") -> float:
    """The median exact ``ln|G|`` of the fits at sample size ``n``: interpolated linearly in
    ``log n`` between the two grid sizes around ``n`` (the grid's end outside it)."""
    med = ppm_rows.groupby("n")[log_g_col].median().sort_index()
    ns = med.index.to_numpy(dtype=float)
    if not np.isfinite(n):
        return math.nan
    return float(np.interp(math.log(n), np.log(ns), med.to_numpy(dtype=float)))


def _ratio(p) -> float:
    """Pooled increments ratio of ``p`` (rows: settings; columns: d = 1, 2, 3)."""
    p = np.asarray(p, dtype=float).reshape(-1, 3)
    den = float(np.sum(p[:, 1] - p[:, 0]))
    return float(np.sum(p[:, 2] - p[:, 1])) / den if den > 0 else math.nan


def private_cost_ratio_pooled(df: pd.DataFrame, settings: dict, beta: float, *,
                              sample_col: str = "samples", error_col: str = "error",
                              log_g_col: str = "log_n_hypotheses", n_boot: int = 300,
                              random_state=0, level: float = 0.95) -> dict:
    """The pooled increments ratio ``R`` of the private cost and its two predictions.

    ``df``: PPM and ERM trials (column ``learner``: :data:`~experiments.columns.PPM` /
    :data:`~experiments.columns.ERM`) with the trials-CSV columns (:mod:`experiments.columns`)
    :data:`~experiments.columns.D`, ``n``, ``trial``, ``error_col``,
    :data:`~experiments.columns.EPSILON` (NaN for ERM), :data:`~experiments.columns.W_PUB`,
    ``sample_col`` (rows
    with equal values at one d ran on the same samples per ``(n, trial)``) and ``log_g_col``
    (PPM). ``settings``: ``{(w_pub, epsilon): alphas}``, the settings the test pools (chosen
    before looking: a setting censored at d = 3 enters as a bound, not dropped).

    Returns ``ratio`` (point), ``lo``, ``hi`` (percentile interval, widened to the grid's
    ``resolution``), ``raw_ratio`` (the same without subtracting ERM, point only),
    ``predicted`` (``(min rho_s, max rho_s)``: the ``ln|G|`` prediction), ``weighted`` (the
    ``ln|G|`` prediction with the theory's scales ``c_s = 1/(epsilon alpha)``), ``direction``
    (``"lower bound"`` if a setting enters censored, else ``""``), ``settings`` (the pooled
    ``(w_pub, epsilon, alpha)``), ``bounded``, ``excluded`` (``(w_pub, epsilon, alpha,
    reason)``), ``per_setting`` (label -> ``dict(ppm, erm, private, log_g, rho, ratio,
    censored)``, ``ppm`` and ``erm`` keyed by the row labels) and the bootstrap's
    ``n_boot_valid``, ``censored_frac``.
    """
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    check_df(df, ["learner", D, "n", "trial", error_col, EPSILON, W_PUB, sample_col],
             [D, "n", error_col])
    unknown = set(df["learner"].unique()) - {PPM, ERM}
    if unknown:
        raise ValueError(f"learner must be {PPM!r} or {ERM!r}, got {sorted(unknown)}")
    t = df.copy()
    t[D] = t[D].astype(float)
    t[W_PUB] = t[W_PUB].astype(float)
    erm = t.learner == ERM
    t.loc[erm, EPSILON] = _NO_EPS
    # ERM rows repeat per epsilon cell of one sample: keep one per (w_pub, d, n, trial)
    t = pd.concat([t[~erm], t[erm].drop_duplicates([W_PUB, D, "n", "trial"])],
                  ignore_index=True)
    keys, datasets, sample_of, trial_ids = split_datasets(t, D, ["learner", W_PUB, EPSILON],
                                                     sample_col, "n", error_col, "trial")
    index = {k: i for i, k in enumerate(keys)}
    target = 1.0 - beta
    cells, labels, bounded, excluded, per = [], [], [], [], {}
    for (w_pub, eps), alphas in sorted(settings.items()):
        w_pub, eps = float(w_pub), float(eps)
        for a in sorted(float(v) for v in alphas):
            label = (w_pub, eps, a)
            p_idx = [index.get((PPM, w_pub, eps, d)) for d in DS]
            e_idx = [index.get((ERM, w_pub, _NO_EPS, d)) for d in DS]
            if any(i is None for i in p_idx + e_idx):
                excluded.append((*label, "not run at every d (PPM and ERM)"))
                continue
            reads = [read_point(datasets[i][0], datasets[i][1], a, target)
                     for i in p_idx + e_idx]
            cens = [c for _, c in reads]
            if any(cens[:2]) or any(cens[3:]) or cens[2] == "left":
                excluded.append((*label, "n_hat censored at " + ", ".join(
                    f"{'PPM' if j < 3 else 'ERM'} d = {int(DS[j % 3])} ({c})"
                    for j, c in enumerate(cens) if c) + ": a bound of no known direction"))
                continue
            vals = [datasets[i][0][-1] if c == "right" else v
                    for (v, c), i in zip(reads, p_idx + e_idx)]
            ppm_rows = t[(t.learner == PPM) & (t[W_PUB] == w_pub) & np.isclose(t[EPSILON], eps)]
            log_g = [log_g_at(ppm_rows[ppm_rows[D] == d], v, log_g_col)
                     for d, v in zip(DS, vals[:3])]
            private = [vals[j] - vals[j + 3] for j in range(3)]
            den = log_g[1] - log_g[0]
            per[label] = {PPM: vals[:3], ERM: vals[3:], "private": private, "log_g": log_g,
                          "rho": (log_g[2] - log_g[1]) / den if den > 0 else math.nan,
                          "ratio": _ratio(private), "censored": cens[2] == "right"}
            if cens[2] == "right":
                bounded.append(label)
            labels.append(label)
            cells += [(i, a, d) for i, d in zip(p_idx, DS)] + [(i, a, d) for i, d in zip(e_idx, DS)]
    n_set = len(labels)

    def stat(_x, y, idx):
        y = np.asarray(y, dtype=float)[np.argsort(idx)].reshape(n_set, 6)
        return _ratio(y[:, :3] - y[:, 3:])

    res = {"ratio": math.nan, "lo": math.nan, "hi": math.nan, "se": math.nan,
           "resolution": (math.nan, math.nan), "n_boot_valid": 0, "censored_frac": math.nan,
           "lack_of_fit": ""}
    if labels:
        resample = shared_resample(datasets, sample_of, trial_ids, {c[0] for c in cells},
                                    partial=True)
        fit = bootstrap(datasets, cells, beta, n_boot, rng, level, resample=resample,
                        slope_fn=stat, keep_censored=True, curve_id=sample_of)
        res.update({k: fit[k] for k in res if k in fit})
        res["ratio"] = _ratio([per[k]["private"] for k in labels])
    rhos = [per[k]["rho"] for k in labels if np.isfinite(per[k]["rho"])]
    w = {k: 1.0 / (k[1] * k[2]) for k in labels}
    dl = {k: np.diff(per[k]["log_g"]) for k in labels}
    wden = sum(w[k] * dl[k][0] for k in labels)
    res.update(
        raw_ratio=_ratio([per[k][PPM] for k in labels]) if labels else math.nan,
        predicted=(min(rhos), max(rhos)) if rhos else (math.nan, math.nan),
        weighted=(sum(w[k] * dl[k][1] for k in labels) / wden) if wden > 0 else math.nan,
        direction="lower bound" if bounded else "", settings=labels, bounded=bounded,
        excluded=excluded, per_setting=per)
    return res
