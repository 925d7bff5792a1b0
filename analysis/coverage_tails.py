"""Each tail of a coverage study's intervals, and the summary of the counted statistics
(docs/model.md §5.2).

The claims' rules read an interval one-sidedly (an upper bound, a band edge, an equivalence
margin), so two-sided coverage is not enough: a 95% percentile interval should leave the truth
below it (``miss_lo``: the interval lies wholly above the truth) and above it (``miss_hi``: it
lies wholly below the truth) each about 2.5% of the time. The target here is each tail
<= :data:`TAIL_TARGET` = 0.04 (the nominal 0.025 plus a Monte-Carlo allowance); each tail comes
with its one-sided 95% Clopper-Pearson upper bound. Over-coverage (both tails well below the
target) is conservative, not a failure: the ``calibration`` column names it so.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import beta as beta_dist

__all__ = ["TAIL_TARGET", "upper_bound", "tails", "calibration", "label_calibration",
           "summarise_counted", "markdown_counted"]

TAIL_TARGET = 0.04


def upper_bound(k: int, t: int, confidence=0.95) -> float:
    """One-sided Clopper-Pearson upper bound of a rate, ``k`` of ``t``."""
    return 1.0 if k >= t else float(beta_dist.ppf(confidence, k + 1, t - k))


def _two_sided(k: int, t: int, confidence=0.95) -> tuple[float, float]:
    a = 1.0 - confidence
    lo = beta_dist.ppf(a / 2, k, t - k + 1) if k > 0 else 0.0
    hi = beta_dist.ppf(1 - a / 2, k + 1, t - k) if k < t else 1.0
    return float(lo), float(hi)


def calibration(miss_lo: float, miss_hi: float, coverage_lo: float, parts: int = 1,
                datasets: int = 0) -> str:
    """The reading of a row's tails: ``short`` where a tail's rate exceeds the target (the
    side named: the interval too high or too low), else ``conservative (over-covers)`` where
    coverage's Clopper-Pearson lower bound exceeds ``1 - 0.05 parts``, else ``within
    target``. A joint row of ``parts`` readings misses on a side when any part does: its
    target is ``parts`` times the target (the union bound). With ``datasets``, a short tail
    says whether its two-sided 95% Clopper-Pearson lower bound clears the nominal
    ``0.025 parts`` (beyond Monte-Carlo error) or not."""
    target = parts * TAIL_TARGET
    short = []
    for side, m in (("truth below the interval", miss_lo), ("truth above the interval",
                                                              miss_hi)):
        if np.isfinite(m) and m > target + 1e-12:
            clear = datasets and _two_sided(round(m * datasets), datasets)[0] > 0.025 * parts
            short.append(f"{side} {m:.3f}" + (" (beyond Monte-Carlo error)" if clear else ""))
    if short:
        return "short: " + " and ".join(short) + f" > {target:g}"
    if coverage_lo > 1.0 - 0.05 * parts:
        return "conservative (over-covers)"
    return "within target" + (f" ({parts} parts: each tail <= {target:g})" if parts > 1
                              else "")


def parts_of(table: pd.DataFrame) -> pd.Series:
    """Per row of a counted table: 1, or for a joint ``every(...)`` row the number of part rows
    (statistic and alpha) of its design and truth."""
    joint = table["quantity"].astype(str).str.startswith("every(")
    counts = (table[~joint].groupby(["design", "truth"]).size()
              if (~joint).any() else pd.Series(dtype=int))
    return pd.Series([int(counts.get((d, t), 1)) if j else 1 for d, t, j in
                      zip(table["design"], table["truth"], joint)], index=table.index)


def label_calibration(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its counted rows' ``calibration`` read again (:func:`calibration`, a joint
    row against its parts' count); the plain ``slope``/``n_hat`` rows as they are."""
    mine = ~table["quantity"].isin(["slope", "n_hat"])
    if not mine.any():
        return table
    parts = parts_of(table[mine])
    out = table.copy()
    out.loc[mine, "calibration"] = [
        calibration(r.miss_lo, r.miss_hi, r.coverage_lo, int(k), int(r.datasets))
        for r, k in zip(table[mine].itertuples(), parts)]
    return out


def tails(below: int, above: int, hit: int, t: int) -> dict:
    """The tail columns of a row: ``below`` data sets whose truth lies below the interval,
    ``above`` above it, ``hit`` covered, of ``t``."""
    cov_lo = _two_sided(hit, t)[0]
    m_lo, m_hi = below / t, above / t
    return dict(miss_lo=m_lo, miss_lo_upper=upper_bound(below, t), miss_hi=m_hi,
                miss_hi_upper=upper_bound(above, t),
                calibration=calibration(m_lo, m_hi, cov_lo))


def summarise_counted(records) -> pd.DataFrame:
    """One row per (design, truth, reading, quantity, cell) of
    :func:`analysis.coverage_counted.run_counted`'s records: bias, sd and mean width of the
    statistic, coverage with its Clopper-Pearson interval, each tail, the fraction flagged
    with a lack of fit and of censored bootstrap cells. A joint ``every(...)`` row reads its
    records' ``covered`` (every part at once), ``below`` and ``above`` (some part's truth
    below, above its interval)."""
    df = pd.DataFrame(records)
    rows = []
    keys = ["design", "truth", "reading", "quantity", "cell"]
    for key, g in df.groupby(keys, sort=False, dropna=False):
        t = len(g)
        joint = str(key[3]).startswith("every(")
        if joint:
            hit, below, above = (int(g[c].astype(bool).sum()) for c in ("covered", "below",
                                                                          "above"))
        else:
            lo, hi, true = (g[c].to_numpy(dtype=float) for c in ("lo", "hi", "true"))
            ok = np.isfinite(lo) & np.isfinite(hi)
            hit = int((ok & (lo <= true) & (true <= hi)).sum())
            below, above = int((ok & (true < lo)).sum()), int((ok & (true > hi)).sum())
        err = (g["estimate"] - g["true"]).to_numpy(dtype=float)
        width = (g["hi"] - g["lo"]).to_numpy(dtype=float)
        fin = np.isfinite(err)
        lof = g["lack_of_fit"].map(lambda s: isinstance(s, str) and s != "")
        cov_lo, cov_hi = _two_sided(hit, t)
        rows.append(dict(zip(keys, key), true=float(g["true"].iloc[0]),
                         outside_grid=int(g["outside_grid"].iloc[0]),
                         bias=float(err[fin].mean()) if fin.any() else math.nan,
                         sd=float(err[fin].std(ddof=1)) if fin.sum() > 1 else math.nan,
                         mean_width=(float(np.nanmean(width)) if np.isfinite(width).any()
                                     else math.nan),
                         coverage=hit / t, coverage_lo=cov_lo, coverage_hi=cov_hi,
                         datasets=t, valid=t if joint else int(np.isfinite(width).sum()),
                         lack_of_fit_frac=float(lof.mean()),
                         censored_frac=float(g["censored_frac"].mean()),
                         **tails(below, above, hit, t)))
    return label_calibration(pd.DataFrame(rows))


def markdown_counted(table: pd.DataFrame, order=()) -> str:
    """The docs' table of the counted statistics (docs/model.md §5.2): the rows of
    ``results/coverage.csv`` whose ``quantity`` is a statistic id (not the plain ``slope`` or
    ``n_hat`` rows of :func:`analysis.coverage.markdown_table`), in ``order`` of design, each
    part before its joint row, truths as :data:`analysis.coverage.TRUTHS` then the others."""
    rows = table[~table["quantity"].isin(["slope", "n_hat"])].copy()
    truth_rank = {t: i for i, t in enumerate(("probit", "logit", "mixture", "two_term_fit",
                                              "share_0.1", "share_0.9", "power_1.5"))}
    rows["_d"] = rows["design"].map({d: i for i, d in enumerate(order)}).fillna(99)
    rows["_j"] = rows["quantity"].str.startswith("every(").astype(int)
    rows["_t"] = rows["truth"].map(truth_rank).fillna(9)
    rows = rows.sort_values(["_d", "_j", "quantity", "cell", "_t"], kind="stable")

    def num(v, fmt):
        return "" if not np.isfinite(v) else format(v, fmt)

    lines = ["| statistic | design | alpha | truth | true | bias | sd | width | coverage [95%] | "
             "miss_lo (upper) | miss_hi (upper) | calibration | lack of fit | data sets |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows.itertuples():
        lines.append("| " + " | ".join([
            r.quantity, r.design, num(r.cell, "g"), r.truth, num(r.true, ".3f"),
            num(r.bias, "+.3f"), num(r.sd, ".3f"), num(r.mean_width, ".3f"),
            f"{r.coverage:.2f} [{r.coverage_lo:.2f}, {r.coverage_hi:.2f}]",
            f"{r.miss_lo:.3f} ({r.miss_lo_upper:.3f})", f"{r.miss_hi:.3f} ({r.miss_hi_upper:.3f})",
            r.calibration, f"{r.lack_of_fit_frac:.2f}", f"{int(r.datasets)}"]) + " |")
    return "\n".join(lines)
