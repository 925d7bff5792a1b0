"""Shared drawing of every claim's figure: learner styles, ``n_hat`` with intervals, saving.

A learner without an entry in ``STYLE`` gets a style of its own (next colour of the cycle,
its name as label), so adding a learner needs no edit here.

No backend is chosen here: in a notebook the figures show inline; the command-line entry points
(``scripts/figures.py``, ``scripts/exact_audits.py``) and the tests select Agg themselves.
Every figure is saved by :func:`save`: panel titles wrapped to their panel's width, legends
kept inside the saved image (``bbox_inches="tight"``), and, inside :func:`banner`, a banner
line above the title (the quick profile: "smoke run, not a verdict").
"""

from __future__ import annotations

import contextlib
import re
import textwrap
import zlib
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.columns import (DP_LOGISTIC, ERM, FULLY_PRIVATE, LOGISTIC, PPM, PUBLIC_ONLY,
                                SEMI_PRIVATE, SEMI_PRIVATE_ALL)

STYLE = {
    PPM: dict(color="C0", marker="o", label="PPM (Alg. 2)"),
    ERM: dict(color="C2", marker="s", label="non-private ERM"),
    FULLY_PRIVATE: dict(color="C3", marker="D", label="fully private EM on the grid"),
    SEMI_PRIVATE: dict(color="C1", marker="v", label="semi-private (public unlabeled)"),
    SEMI_PRIVATE_ALL: dict(color="C5", marker="^",
                             label="semi-private variant scoring public labels too"),
    LOGISTIC: dict(color="C2", marker="s", label="logistic regression (non-private)"),
    DP_LOGISTIC: dict(color="C3", marker="D", label="DP logistic regression (diffprivlib)"),
    PUBLIC_ONLY: dict(color="0.5", marker="x", label="public only"),
}
_MARKERS = "oPX*hp<>d"
OPEN_UPPER_LABEL = "dotted arrow: upper end of the interval open (Clopper-Pearson: too few trials)"
SMOKE_BANNER = "quick profile: smoke run, not a verdict"
_BANNER: list[str] = []  # the banner of the figures being drawn (see banner())
_VARIANT: list[tuple[str, str]] = []  # (file suffix, title line) of the figures being drawn


def style(learner: str) -> dict:
    """A copy of the learner's style; a stable default (colour, marker) for unknown learners."""
    if learner in STYLE:
        return dict(STYLE[learner])
    h = zlib.crc32(learner.encode())  # stable across runs, unlike hash()
    return dict(color=f"C{6 + h % 4}", marker=_MARKERS[h % len(_MARKERS)], label=learner)


def style_and_label(learner: str, suffix: str = "", **override) -> tuple[dict, str]:
    s = style(learner)
    label = s.pop("label") + suffix
    s.update(override)
    return s, label


def uncensored(sub: pd.DataFrame) -> np.ndarray:
    """Rows whose ``n_hat`` is a point value (an empty 'censored' cell reads back as NaN)."""
    return (sub["censored"].astype("string").fillna("").eq("") & np.isfinite(sub["n_hat"])
            ).to_numpy()


def right_censored(sub: pd.DataFrame) -> np.ndarray:
    return sub["censored"].astype("string").fillna("").eq("right").to_numpy()


def draw_nhat(ax, x, sub: pd.DataFrame, top, style: dict, label: str) -> None:
    """``n_hat`` with its interval at ``x``; right-censored cells as open triangles at ``top``
    (a number, or one value per row of ``sub``: the largest n of that row's own setting).

    Where the Clopper-Pearson upper end ``n_hat_hi`` does not exist (the pessimistic curve
    never reaches ``1 - beta``: too few trials, or the grid ends first) the whisker is open:
    a dotted line from ``n_hat`` to the top of the axis ending in an arrow head, not a
    zero-length whisker that would read as a tight interval.
    """
    x = np.asarray(x, dtype=float)
    ok = uncensored(sub)
    nh = sub["n_hat"].to_numpy(dtype=float)
    lo = np.where(np.isfinite(sub["n_hat_lo"]), sub["n_hat_lo"], nh)
    hi_raw = sub["n_hat_hi"].to_numpy(dtype=float)
    hi = np.where(np.isfinite(hi_raw), hi_raw, nh)
    kw = {k: v for k, v in style.items() if k != "label"}
    ax.errorbar(x[ok], nh[ok], yerr=[(nh - lo)[ok], (hi - nh)[ok]], capsize=3, label=label,
                **kw)
    open_hi = ok & ~np.isfinite(hi_raw)
    for xi, yi in zip(x[open_hi], nh[open_hi]):
        # blended transform: x in data, y in axes fraction (1 = the top of the axis, whatever
        # the limits end up being after every curve is drawn)
        ax.annotate("", xy=(xi, 1.0), xycoords=("data", "axes fraction"), xytext=(xi, yi),
                    textcoords="data", arrowprops=dict(arrowstyle="-|>", ls=":", lw=1,
                                                       color=style.get("color", "k")))
    if open_hi.any() and not getattr(ax, "_ppm_open_hi_legend", False):
        # one legend entry per panel (not one per curve): the arrow's colour names the curve
        ax._ppm_open_hi_legend = True
        ax.plot([], [], ls=":", color="0.3", marker="^", markersize=4,
                label=OPEN_UPPER_LABEL)
    right = right_censored(sub)
    if right.any():
        tops = np.broadcast_to(np.asarray(top, dtype=float), x.shape)[right]
        text = f"{float(top):g}" if np.ndim(top) == 0 else "largest n"
        ax.scatter(x[right], tops, marker="^", s=60, facecolors="none",
                   edgecolors=style["color"], label=f"{label}: n_hat > {text} (censored)")


def log_axes(ax, ticks=None, xlabel: str = "", ylabel: str = "", base: float = 10) -> None:
    """Log-log axes with a grid; ``ticks``: label exactly these x values."""
    ax.set_xscale("log", base=base)
    ax.set_yscale("log")
    if ticks is not None:
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)


def nhat_label(beta: float, what: str = "") -> str:
    return rf"$\hat n(\alpha, \beta={beta:g})$" + what


def legend_below(ax, ncol: int = 2) -> None:
    """The legend under the axes, in as many columns (at most ``ncol``) as fit its width."""
    labels = [lb for lb in ax.get_legend_handles_labels()[1] if not lb.startswith("_")]
    if not labels:
        return
    fig = ax.get_figure()
    width_in = ax.get_position().width * fig.get_figwidth()
    per_col = max(len(lb) for lb in labels) * 0.055 + 0.45  # fontsize 7: ~0.055 in per char
    ncol = max(1, min(ncol, int(width_in * 1.1 // per_col)))
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=ncol,
              frameon=False)


def fmt_values(pairs, fmt: str = ".2f", none: str = "not measured") -> str:
    """``"label: value"`` for every finite value of ``pairs`` (``(label, value)``), joined by
    ``"; "``; NaN values are left out (a title never reads "nan"), ``none`` if nothing is left.
    A label of ``""`` gives the bare value."""
    parts = [f"{lb}: {v:{fmt}}" if lb else f"{v:{fmt}}" for lb, v in pairs
             if v is not None and np.isfinite(v)]
    return "; ".join(parts) if parts else none


def finite(*values) -> bool:
    """Every value is a finite number (a slope and its interval, say)."""
    return all(v is not None and np.isfinite(v) for v in values)


@contextlib.contextmanager
def banner(text: str | None):
    """Figures saved inside this block carry ``text`` above their title (None: no banner)."""
    _BANNER.append(text or "")
    try:
        yield
    finally:
        _BANNER.pop()


@contextlib.contextmanager
def variant(suffix: str, title: str):
    """Figures saved inside this block are one value of a parameter an override swept
    (``claims/reporting/report.py``): their file name ends in ``suffix`` and ``title`` is added
    under the figure's title (which value, and which values the results root holds)."""
    _VARIANT.append((suffix, title))
    try:
        yield
    finally:
        _VARIANT.pop()


def compact(fig, grid, used, panel_size: tuple[float, float]) -> None:
    """Drop the panels of ``grid`` (a 2-D array of axes) that are not in ``used``: each row
    keeps its used panels, left-aligned; a row without any is removed; the figure shrinks to
    the panels left (``panel_size``: inches per panel)."""
    keep = [[ax for ax in row if any(ax is u for u in used)] for row in np.atleast_2d(grid)]
    keep = [row for row in keep if row]
    for ax in np.ravel(grid):
        if not any(ax is k for row in keep for k in row):
            fig.delaxes(ax)
    if not keep:
        return
    ncol = max(len(row) for row in keep)
    spec = fig.add_gridspec(len(keep), ncol)
    for r, row in enumerate(keep):
        for c, ax in enumerate(row):
            ax.set_subplotspec(spec[r, c])
    fig.set_size_inches(panel_size[0] * ncol, panel_size[1] * len(keep))


def _panel_chars(fig, ax, size: float) -> int:
    """About how many characters of a title in ``size`` points fit over ``ax``."""
    width_in = ax.get_position().width * fig.get_figwidth()
    return max(20, int(width_in * 72 / (0.55 * size)))


def titles_to_caption(fig) -> str:
    """Every panel title to ONE line that fits its panel; what does not fit (the statistics and
    verdict text several claims put in their titles' further lines) moves to the caption
    returned, one paragraph per panel ("(2) <its title>: <the rest>"), which :func:`save` writes
    under the figure."""
    parts = []
    titled = [ax for ax in fig.axes if ax.title.get_text()]
    for i, ax in enumerate(titled, 1):
        lines = [" ".join(ln.split()) for ln in ax.title.get_text().split("\n")]
        head, rest = lines[0], [ln for ln in lines[1:] if ln]
        chars = _panel_chars(fig, ax, ax.title.get_fontsize())
        label = f"({i}) " if len(titled) > 1 else ""
        if len(label) + len(head) > chars - 2:
            # cut at a clause boundary when one is close, else at a word
            room = head[:chars - 2 - len(label)]
            cut = max(room.rfind(sep) for sep in (": ", "; ", ", ", " ("))
            cut = cut if cut >= len(room) // 3 else room.rfind(" ")
            short = head[:cut].rstrip(" :;,(") if cut > 0 else room
        else:
            short = head
        if not rest and short == head:
            ax.title.set_text(head)
            continue
        ax.title.set_text(f"{label}{short} …")
        parts.append(f"{label}{head}" + (": " + "; ".join(rest) if rest else ""))
    return "\n".join(parts)


_SIGNS = ((re.compile(r"(?<![\w$])-\+(?![\w$])"), "\u2213"),  # "1/2 -+ 4 alpha": minus-plus
          (re.compile(r"(?<![\w$])\+-(?![\w$])"), "\u00b1"))  # "1 +- 0.25": plus-minus
_VERDICT_WORDS = re.compile(r"\b(holds|does not hold)\b")


def signs(text: str) -> str:
    """``text`` with "-+" and "+-" (as code and tables write them) as the signs they stand
    for, "∓" and "±"."""
    for rx, sign in _SIGNS:
        text = rx.sub(sign, text)
    return text


def _face_text(fig, smoke: bool) -> None:
    """Every text on the figure with its signs (:func:`signs`); on a smoke run's figure, a
    verdict word reads "smoke run: holds" (a smoke run decides nothing)."""
    from matplotlib.text import Text
    for t in fig.findobj(Text):
        text = t.get_text()
        new = signs(text)
        if smoke:
            new = _VERDICT_WORDS.sub(r"smoke run: \1", new)
        if new != text:
            t.set_text(new)


def panels(n: int, width: float = 6.4, height: float = 6.2):
    fig, axes = plt.subplots(1, n, figsize=(width * n, height), squeeze=False)
    return fig, axes[0]


def save(fig, out_dir: Path, name: str, title: str, dpi: int = 120) -> Path:
    """Suptitle (under the banner, if any), one-line panel titles with the rest of each in a
    caption under the figure (:func:`titles_to_caption`), tight layout,
    ``<out_dir>/<name>.png`` with everything drawn inside it (legends below the panels too);
    closes the figure."""
    text = _BANNER[-1] if _BANNER else ""
    _face_text(fig, text == SMOKE_BANNER)
    caption = titles_to_caption(fig)
    suffix, line = _VARIANT[-1] if _VARIANT else ("", "")
    fig.suptitle(title + (f"\n{line}" if line else ""), fontsize=11)
    out = Path(out_dir) / f"{name}{suffix}.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    if caption:  # under everything drawn (legends below the panels too), wrapped to the width
        chars = max(60, int(fig.get_figwidth() * 72 / (0.55 * 8)))
        wrapped = "\n".join(w for para in caption.split("\n")
                            for w in (textwrap.wrap(para, chars) or [""]))
        bottom = fig.get_tightbbox(fig.canvas.get_renderer()).y0 / fig.get_figheight()
        fig.text(0.01, bottom - 0.01, wrapped, ha="left", va="top", fontsize=8)
    if text:
        fig.text(0.5, 1.0, text, ha="center", va="bottom", fontsize=14, weight="bold",
                 color="crimson")
    fig.savefig(out, dpi=dpi, bbox_inches="tight", pad_inches=0.15)
    plt.close(fig)
    return out


def error_panel(ax, trials: pd.DataFrame, x_col: str, xlabel: str, learners) -> None:
    """Mean true error with 95% intervals against ``x_col``, one line per (learner, n)
    (solid: the largest n)."""
    from claims.rules.verdicts import mean_ci
    for learner in learners:
        for j, (n, g) in enumerate(sorted(trials[trials.learner == learner].groupby("n"),
                                          reverse=True)):
            stats = g.groupby(x_col)["error"].apply(mean_ci)
            m, lo, hi = (np.array([s[k] for s in stats]) for k in range(3))
            s, label = style_and_label(learner, f", n = {n}")
            ax.errorbar(stats.index.to_numpy(dtype=float), m, yerr=[m - lo, hi - m], capsize=3,
                        label=label, ls="-" if j == 0 else ":", **s)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("true error (mean, 95% interval over trials)")
    ax.grid(True, alpha=0.3)
    legend_below(ax)
