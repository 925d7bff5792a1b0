"""One figure of every counted setting: measured statistic vs the prediction, per claim.

``<root>/figures/overview.png``, drawn by ``scripts/summary.py`` from the per-claim
``<root>/<claim>/summary.csv``: one panel per claim with a measured interval (a slope, a ratio,
a difference: the ``slope``, ``slope_lo``, ``slope_hi`` columns of its rows), one row per
counted setting (reference rows, breakdowns and checks left out,
:func:`claims.rules.verdicts.counted`). Each row shows the measured value with its interval,
coloured by its verdict, over the band the claim's theory admits (read from the row's ``theory``
text, "band [lo, hi]", where it states one), with the claim's predicted value and its alternative's
as reference lines (:func:`references_of`). Claims whose verdicts are not an interval (the exact
audits C6 and C7, the comparisons of C8, C10 and the real data) are named under the figure. Titles
are one line (the README shows this figure). A quick-profile root's overview carries the smoke-run
banner and draws every row in black: a smoke run holds nothing.
"""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from claims.reporting import plotting
from claims.rules.accounting import joint_part_verdict
from claims.base import is_smoke, share_trials
from claims.registry import CLAIMS
from claims.rules.verdicts import counted

NAME = "overview"
_BAND = re.compile(r"band \[([-+]?[\d.]+(?:e[-+]?\d+)?), ([-+]?[\d.]+(?:e[-+]?\d+)?)\]")
COLOURS = {"holds": "tab:green", "does not hold": "tab:red", "faster": "tab:blue"}
REFERENCE_STYLE = {"predicted": ("-", "tab:brown"), "alternative": ("--", "dimgray")}


_NUM = r"([-+]?[\d.]+(?:e[-+]?\d+)?)"
_PREDICTED = re.compile(rf"\[{_NUM}, {_NUM}\], band \[{_NUM}, {_NUM}\]")
_ALTERNATIVE = re.compile(rf"alternative[^;]*?\[{_NUM}, {_NUM}\], band \[{_NUM}, {_NUM}\]")
# a value stated as "b = 2, band [...]" (C4's exponent of d)
_PREDICTED_VALUE = re.compile(rf"= {_NUM}, band \[")
_ALTERNATIVE_VALUE = re.compile(rf"alternative[^;]*?= {_NUM}, band \[")
# an equivalence margin on a log ratio over a range of w_pub (C5): the statistic drawn is the
# slope against log w_pub, so the margin and the references are divided by ln(hi/lo) of the range
_RATIO = re.compile(rf"over w_pub {_NUM}\.\.{_NUM}, log ratio within \[{_NUM}, {_NUM}\]")
_RATIO_NULL = re.compile(rf"in the total n: {_NUM}")
_RATIO_ALT = re.compile(rf"alternative[^;]*?: log ratio {_NUM}")


def band_of(theory) -> tuple[float, float] | None:
    """The band the claim's theory admits for the row's statistic: the first "band [lo, hi]" of
    the row's theory text, or an equivalence margin on a log ratio over a w_pub range ("over
    w_pub a..b, log ratio within [lo, hi]") on the slope's scale; None where it states none."""
    text = str(theory)
    m = _BAND.search(text)
    if m:
        return float(m.group(1)), float(m.group(2))
    m = _RATIO.search(text)
    if m:
        scale = math.log(float(m.group(2)) / float(m.group(1)))
        return float(m.group(3)) / scale, float(m.group(4)) / scale
    return None


def references_of(theory) -> dict[str, tuple[float, float]]:
    """The reference values of the row's theory text on the statistic's scale: ``predicted``
    (the claim's own value or range, the "[a, b]" before its band) and ``alternative`` (the
    rival hypothesis's), each ``(a, b)``; absent where the text states none."""
    text, out = str(theory), {}
    for key, ranged, single in (("predicted", _PREDICTED, _PREDICTED_VALUE),
                                ("alternative", _ALTERNATIVE, _ALTERNATIVE_VALUE)):
        m, v = ranged.search(text), single.search(text)
        if m and (v is None or m.start() <= v.start()):
            out[key] = (float(m.group(1)), float(m.group(2)))
        elif v:
            out[key] = (float(v.group(1)),) * 2
    ratio = _RATIO.search(text)
    if ratio:
        scale = math.log(float(ratio.group(2)) / float(ratio.group(1)))
        for key, rx in (("predicted", _RATIO_NULL), ("alternative", _RATIO_ALT)):
            m = rx.search(text)
            if m:
                out[key] = (float(m.group(1)) / scale,) * 2
    return out


def row_label(setting, width: int = 30) -> str:
    """A row's setting in at most two lines of whole words (the rest as " …"), with "-+" and
    "+-" written as the signs they stand for."""
    text = " ".join(plotting.signs(str(setting)).split())
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    if len(lines) <= 2:
        return "\n".join(lines)
    return lines[0] + "\n" + textwrap.shorten(" ".join(lines[1:]), width, placeholder=" …")


def verdict_colour(verdict, smoke: bool = False) -> str:
    """The verdict's colour; a smoke run's rows are all black (it decides nothing)."""
    if smoke:
        return "black"
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
    :func:`claims.rules.accounting.one_per_trial_set`) has no interval of its own: it is drawn as
    its readings, each with its own interval and verdict colour, labelled ``every: <reading>``."""
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
    smoke = is_smoke(root)
    ncol = 4
    nrow = math.ceil(len(rows) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.1 * nrow), squeeze=False)
    for ax, (cid, df) in zip(axes.ravel(), rows.items()):
        y = np.arange(len(df))[::-1]
        for yi, (_, r) in zip(y, df.iterrows()):
            band = band_of(r.get("theory", ""))
            if band:
                ax.fill_betweenx([yi - 0.4, yi + 0.4], *band, color="tab:orange", alpha=0.25,
                                 lw=0)
            refs = references_of(r.get("theory", ""))
            for key, (style, colour) in REFERENCE_STYLE.items():
                for x in sorted(set(refs.get(key, ()))):
                    ax.plot([x, x], [yi - 0.4, yi + 0.4], ls=style, color=colour, lw=1.2)
            lo, hi, mid = (float(r["slope_lo"]), float(r["slope_hi"]), float(r["slope"]))
            colour = verdict_colour(r["verdict"], smoke)
            err = [[max(mid - lo, 0)], [max(hi - mid, 0)]] if np.isfinite([lo, hi]).all() \
                else None
            ax.errorbar([mid], [yi], xerr=err, fmt="o", color=colour, ms=4, capsize=2)
        ax.set_yticks(y)
        ax.set_ylim(-0.6, len(df) - 0.4)
        # whole words only, two lines at most (a label cut mid-word misleads)
        ax.set_yticklabels([row_label(s) for s in df["setting"]], fontsize=6)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"{cid}: {statements.get(cid, '')}", fontsize=8)
    for ax in axes.ravel()[len(rows):]:
        fig.delaxes(ax)
    without = [c.id for c in CLAIMS if c.id not in rows]
    colours = ("black: a smoke run (quick profile) decides nothing" if smoke else
               "green holds, red does not hold, blue faster than the worst case, grey "
               "inconclusive")
    fig.text(0.01, 0.0, "measured statistic (slope, ratio or difference of the claim's own "
             "test) with its interval, per counted setting; shaded: the band the theory admits; "
             "solid line: the claim's predicted value (or range), dashed: the alternative's; "
             f"{colours}; 'every:' marks the readings of one trial set, counted once as one "
             "row (each reading must meet its band)."
             + (f" Not an interval (audits, comparisons): {', '.join(without)}." if without
                else ""),
             fontsize=8, va="top", wrap=True)
    with plotting.banner(plotting.SMOKE_BANNER if smoke else None):
        return plotting.save(fig, Path(out_dir) if out_dir else Path(root) / "figures", NAME,
                             "Every counted setting: measured vs predicted, per claim")
