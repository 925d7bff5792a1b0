"""One figure of every counted setting: measured statistic vs the prediction, per claim.

``<root>/figures/overview.png``, drawn by ``scripts/summary.py`` from the per-claim
``<root>/<claim>/summary.csv``: one panel per claim with a measured interval (a slope, a ratio,
a difference: the ``slope``, ``slope_lo``, ``slope_hi`` columns of its rows), one row per
counted setting (reference rows, breakdowns and checks left out, :func:`claims.verdicts.counted`).
Each row shows the measured value with its interval, coloured by its verdict, over the band the
claim's theory admits (read from the row's ``theory`` text, "band [lo, hi]", where it states
one). Claims whose verdicts are not an interval (the exact audits C6 and C7, the comparisons
of C8, C10 and the real data) are named under the figure. Titles are one line (the README shows
this figure).
"""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from claims import plotting
from claims.accounting import joint_part_verdict
from claims.base import share_trials
from claims.registry import CLAIMS
from claims.verdicts import counted

NAME = "overview"
_BAND = re.compile(r"band \[([-+]?[\d.]+(?:e[-+]?\d+)?), ([-+]?[\d.]+(?:e[-+]?\d+)?)\]")
COLOURS = {"holds": "tab:green", "does not hold": "tab:red", "faster": "tab:blue"}


def band_of(theory) -> tuple[float, float] | None:
    """The first "band [lo, hi]" of a row's theory text (the claim's prediction), or None."""
    m = _BAND.search(str(theory))
    return (float(m.group(1)), float(m.group(2))) if m else None


def verdict_colour(verdict) -> str:
    text = str(verdict).removeprefix("smoke run (quick profile): ")
    for word, colour in COLOURS.items():
        if text.startswith(word):
            return colour
    return "tab:gray"  # inconclusive, mixed, not measured


def rows_of(root: Path) -> dict[str, pd.DataFrame]:
    """claim id -> its counted rows with a finite measured value (registry order)."""
    out = {}
    for claim in CLAIMS:
        path = Path(root) / claim.name / "summary.csv"
        if not path.exists():
            continue
        df = pd.read_csv(path)
        if "slope" not in df:
            continue
        df = _with_joint_parts(df)
        df = df[df["verdict"].map(counted) & np.isfinite(pd.to_numeric(df["slope"],
                                                                     errors="coerce"))]
        if len(df):
            out[claim.id] = df.reset_index(drop=True)
    return out


def _with_joint_parts(df: pd.DataFrame) -> pd.DataFrame:
    """A joint row (one trial set read at several alphas, counted once:
    :func:`claims.accounting.one_per_trial_set`) has no interval of its own: it is drawn as its
    readings, each with its own interval and verdict colour, labelled ``every: <reading>``."""
    if "statistic" not in df:
        return df
    stat = df["statistic"].fillna("").astype(str)
    rows = []
    for i, r in df.iterrows():
        if not stat[i].startswith("every("):
            rows.append(r)
            continue
        labels = str(r.get("extra", "")).split(": ", 1)[-1].split(", ")
        parts = [p for _, p in df.iterrows()
                 if joint_part_verdict(p["verdict"]) is not None
                 and share_trials(p["trials"], r["trials"])]
        if len(labels) != len(parts):  # a label holding ", ": the readings' own settings
            labels = [str(p["setting"]) for p in parts]
        d = pd.to_numeric(pd.Series([r.get("d")]), errors="coerce").iloc[0]
        head = f"every, d={d:g}" if np.isfinite(d) else "every"  # two trial sets at two d
        for label, p in zip(labels, parts):
            rows.append(pd.Series({**p.to_dict(), "setting": f"{head}: {label}",
                                   "verdict": joint_part_verdict(p["verdict"])}))
    return pd.DataFrame(rows).reset_index(drop=True) if rows else df.iloc[:0]


def draw(root: Path, out_dir: Path | None = None) -> Path | None:
    """Draw ``<out_dir or root/figures>/overview.png``; None when no claim has an interval."""
    import matplotlib.pyplot as plt

    rows = rows_of(root)
    if not rows:
        return None
    statements = {c.id: c.statement for c in CLAIMS}
    ncol = 4
    nrow = math.ceil(len(rows) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 2.9 * nrow), squeeze=False)
    for ax, (cid, df) in zip(axes.ravel(), rows.items()):
        y = np.arange(len(df))[::-1]
        for yi, (_, r) in zip(y, df.iterrows()):
            band = band_of(r.get("theory", ""))
            if band:
                ax.fill_betweenx([yi - 0.4, yi + 0.4], *band, color="tab:orange", alpha=0.25,
                                 lw=0)
            lo, hi, mid = (float(r["slope_lo"]), float(r["slope_hi"]), float(r["slope"]))
            colour = verdict_colour(r["verdict"])
            err = [[max(mid - lo, 0)], [max(hi - mid, 0)]] if np.isfinite([lo, hi]).all() \
                else None
            ax.errorbar([mid], [yi], xerr=err, fmt="o", color=colour, ms=4, capsize=2)
        ax.set_yticks(y)
        # whole words only (a label cut mid-word misleads)
        ax.set_yticklabels([textwrap.shorten(str(s), 34, placeholder=" …") for s in df["setting"]],
                           fontsize=6)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"{cid}: {statements.get(cid, '')}", fontsize=8)
    for ax in axes.ravel()[len(rows):]:
        fig.delaxes(ax)
    without = [c.id for c in CLAIMS if c.id not in rows]
    fig.text(0.01, 0.0, "measured statistic (slope, ratio or difference of the claim's own "
             "test) with its interval, per counted setting; shaded: the band the theory admits; "
             "green holds, red does not hold, blue faster than the worst case, grey "
             "inconclusive; 'every:' marks the readings of one trial set, counted once as one "
             "row that holds only if each holds." + (f" Not an interval (audits, comparisons): {', '.join(without)}."
                                if without else ""), fontsize=8, va="top")
    return plotting.save(fig, Path(out_dir) if out_dir else Path(root) / "figures", NAME,
                         "Every counted setting: measured vs predicted, per claim")
